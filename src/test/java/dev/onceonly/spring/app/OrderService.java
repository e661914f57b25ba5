package dev.onceonly.spring.app;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.queue.Message;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The application's service: its own writes, a receipts step and a send in one transaction. */
@Service
public class OrderService {
  private final OnceOnly once;
  private final JdbcTemplate jdbc;

  /**
   * Creates the service.
   *
   * @param once the auto-configured store
   * @param jdbc the application's own JDBC access
   */
  public OrderService(OnceOnly once, JdbcTemplate jdbc) {
    this.once = once;
    this.jdbc = jdbc;
  }

  /** Thrown after every write, to roll the whole transaction back. */
  public static final class PaymentDeclined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PaymentDeclined(String key) {
      super("payment declined for " + key);
    }
  }

  // ---- docs/spring.md, a @Transactional service ----
  @Transactional(rollbackFor = SQLException.class) // the effect's SQLException passes unwrapped
  public String placeOrder(String user, String requestKey, String item) throws SQLException {
    jdbc.update("INSERT INTO audit_log (entry) VALUES (?)", user + " asked for " + item);
    Outcome<String> outcome =
        once.receipts()
            .execute(
                IntentKey.of(user, requestKey),
                "place_order",
                Map.of("item", item),
                String.class,
                tx -> { // runs once per key
                  // the outbox, inside the step: a retry (Repeated) sends no second message
                  once.queue().send(tx, Message.of("shipping", requestKey, Map.of("item", item)));
                  return insertOrder(tx, requestKey, user, item);
                });
    return outcome.fold(
        created -> "201 " + created.result(), // written in this transaction: durable at commit
        repeated -> "200 " + repeated.result(),
        conflict -> "422 key already used for another order",
        expired -> "410 key expired");
  }

  // ---- end of the docs/spring.md example ----

  /** Does what {@link #placeOrder} does, then fails: Spring rolls everything back. */
  @Transactional(rollbackFor = SQLException.class)
  public String placeOrderThenFail(String user, String requestKey, String item)
      throws SQLException {
    placeOrderSteps(user, requestKey, item);
    throw new PaymentDeclined(requestKey);
  }

  private void placeOrderSteps(String user, String requestKey, String item) throws SQLException {
    jdbc.update("INSERT INTO audit_log (entry) VALUES (?)", user + " asked for " + item);
    once.receipts()
        .execute(
            IntentKey.of(user, requestKey),
            "place_order",
            Map.of("item", item),
            String.class,
            tx -> {
              once.queue().send(tx, Message.of("shipping", requestKey, Map.of("item", item)));
              return insertOrder(tx, requestKey, user, item);
            });
  }

  /** The application's own JDBC code; it writes only through the connection it is given. */
  static String insertOrder(Connection tx, String requestKey, String user, String item)
      throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO orders (request_key, owner, item) VALUES (?, ?, ?)")) {
      ps.setString(1, requestKey);
      ps.setString(2, user);
      ps.setString(3, item);
      ps.executeUpdate();
    }
    return "order " + requestKey;
  }
}
