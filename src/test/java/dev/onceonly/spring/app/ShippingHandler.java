package dev.onceonly.spring.app;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Job;
import dev.onceonly.spring.OnceOnlyHandler;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/** Ships what the shop sold: one row per order, committed with its acknowledgement. */
// ---- docs/spring.md, a worker bean ----
@Component
@OnceOnlyHandler(queue = "shipping", threads = 2)
public class ShippingHandler implements Handler {
  private static final String SHIP = "INSERT INTO shipments (message_key, item) VALUES (?, ?)";
  private final OnceOnly once;
  private final JdbcTemplate jdbc;

  public ShippingHandler(OnceOnly once, JdbcTemplate jdbc) {
    this.once = once;
    this.jdbc = jdbc;
  }

  @Override
  @Transactional(rollbackFor = Exception.class) // a checked exception rolls back too
  public void handle(Job job) throws Exception {
    String order = job.delivery().key(); // the order's key: every message of an order carries it
    String item = job.payload().get("item").asText();
    Gate.pass(item);
    once.receipts()
        .execute(
            IntentKey.of("shipping", order), // a delivery of a shipped order is Repeated
            "ship_order",
            Map.of("item", item),
            Integer.class,
            tx -> jdbc.update(SHIP, order, item)); // Spring's connection: runs once per order
    job.completeWith(tx -> null); // the acknowledgement joins this transaction: all or nothing
  }
}

// ---- end of the docs/spring.md worker bean ----

/** Holds the handler of the item {@code "slow"} until the test lets it go. */
final class Gate {
  static volatile CountDownLatch entered = new CountDownLatch(1);
  static volatile CountDownLatch release = new CountDownLatch(0);

  private Gate() {}

  static void pass(String item) throws InterruptedException {
    if (item.equals("slow")) {
      entered.countDown();
      release.await();
    }
  }
}
