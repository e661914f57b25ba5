package dev.onceonly.readme;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.testing.Drain;
import dev.onceonly.testing.FaultTarget;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;

/**
 * A wrong way to charge an order, for the fault-injection kit: the effect outside the receipt's
 * transaction (the right way is docs/testing.md's {@link ChargeTarget}). Public, with public
 * no-argument constructors, as the kit instantiates them in child JVMs.
 */
public final class ChargeTargets {
  /** The effects query both are checked with. */
  public static final String EFFECTS = "SELECT order_id, COUNT(*) FROM charges GROUP BY order_id";

  private ChargeTargets() {}

  static void createTable(OnceOnly once) throws SQLException {
    once.useTransaction(
        tx -> {
          try (Statement s = tx.createStatement()) {
            s.execute(
                "CREATE TABLE IF NOT EXISTS charges (order_id TEXT NOT NULL, cents INTEGER NOT"
                    + " NULL)");
          }
        });
  }

  static long insert(Connection tx, String order) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO charges (order_id, cents) VALUES (?, 1250)")) {
      ps.setString(1, order);
      ps.executeUpdate();
    }
    return 1250L;
  }

  /** Wrong: the charge commits in a transaction of its own, then the receipt in another. */
  public static final class OutsideTheReceiptsTransaction implements FaultTarget {
    /** For the kit. */
    public OutsideTheReceiptsTransaction() {}

    @Override
    public void prepare(OnceOnly once) throws Exception {
      createTable(once);
    }

    @Override
    public void run(OnceOnly once, String order) throws Exception {
      once.useTransaction(tx -> insert(tx, order));
      once.receipts()
          .execute(
              IntentKey.of("charges", order),
              "charge",
              Map.of("order", order),
              Long.class,
              tx -> 1250L);
    }
  }

  /**
   * Right, through the queue: the order is sent, and its handler charges in the transaction that
   * acknowledges the message, so kills land in the acknowledgement too. The lease is a millisecond,
   * so that a message a killed process held is due again for the next one; the attempts are not
   * limited, so that no message is dead-lettered by kills alone.
   */
  public static final class ThroughTheQueue implements FaultTarget {
    private static final RetryPolicy UNLIMITED =
        RetryPolicy.builder().maxAttempts(1_000_000).maxElapsed(Duration.ofDays(365)).build();

    /** For the kit. */
    public ThroughTheQueue() {}

    @Override
    public void prepare(OnceOnly once) throws Exception {
      createTable(once);
    }

    @Override
    public void run(OnceOnly once, String order) throws Exception {
      JobQueue queue = once.queue(UNLIMITED);
      queue.send("charges", order, Map.of("order", order));
      Drain.of(
              queue,
              "charges",
              job -> {
                String o = job.payload().get("order").asText();
                job.completeWith(
                    tx ->
                        once.receipts()
                            .execute(
                                tx,
                                IntentKey.of("charges", o),
                                "charge",
                                Map.of("order", o),
                                Long.class,
                                c -> insert(c, o)));
              })
          .lease(Duration.ofMillis(1))
          .run();
    }
  }
}
