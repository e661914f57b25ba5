package dev.onceonly.readme;

import dev.onceonly.Effect;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
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
import javax.sql.DataSource;

/**
 * Two ways an application might charge an order, for the fault-injection kit: one right, one with
 * the effect outside the receipt's transaction. Public, with public no-argument constructors, as
 * the kit instantiates them in child JVMs.
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

  /** Records the receipt of an order's charge, with {@code effect} in its transaction. */
  static Outcome<Long> charge(OnceOnly once, String order, Effect<Long, SQLException> effect)
      throws SQLException {
    return once.receipts()
        .execute(
            IntentKey.of("charges", order), "charge", Map.of("order", order), Long.class, effect);
  }

  /** Charges an order: one row of {@code charges}. */
  static long insert(Connection tx, String order) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO charges (order_id, cents) VALUES (?, 1250)")) {
      ps.setString(1, order);
      ps.executeUpdate();
    }
    return 1250L;
  }

  /** Right: the charge is the receipt's effect, in the receipt's transaction. */
  public static final class InTheReceiptsTransaction implements FaultTarget {
    /** For the kit. */
    public InTheReceiptsTransaction() {}

    @Override
    public void prepare(OnceOnly once) throws Exception {
      createTable(once);
    }

    @Override
    public void run(OnceOnly once, String order) throws Exception {
      charge(once, order, tx -> insert(tx, order));
    }
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
      charge(once, order, tx -> 1250L);
    }
  }

  /**
   * Wrong, the way most applications go wrong: the receipt is recorded, then the charge commits on
   * the application's own connection, outside any receipt. A crash after the charge and before the
   * answer makes the client retry, the receipt answers "repeated" and the charge runs again. The
   * negative control of the kit: the run must find the duplicate every time, which it can only by a
   * kill after the charge, on the application's connection.
   */
  public static final class OutsideAnyReceipt implements FaultTarget {
    private DataSource dataSource;

    /** For the kit. */
    public OutsideAnyReceipt() {}

    @Override
    public void prepare(OnceOnly once, DataSource dataSource) throws Exception {
      this.dataSource = dataSource;
      createTable(once);
    }

    @Override
    public void run(OnceOnly once, String order) throws Exception {
      charge(once, order, tx -> 1250L);
      try (Connection c = dataSource.getConnection()) {
        insert(c, order);
      }
    }
  }

  /**
   * Unseen: the charge goes through a connection of the target's own pool (opened on the URL of the
   * data source it was handed, never through that data source), after the receipt. No kill can land
   * around that charge, so a kit that counted only the store's points would call the run OK; the
   * report must say it is INCOMPLETE.
   */
  public static final class OwnPool implements FaultTarget {
    private String url;

    /** For the kit. */
    public OwnPool() {}

    @Override
    public void prepare(OnceOnly once, DataSource dataSource) throws Exception {
      try (Connection c = dataSource.getConnection()) {
        url = c.getMetaData().getURL();
      }
      createTable(once);
    }

    @Override
    public void run(OnceOnly once, String order) throws Exception {
      charge(once, order, tx -> 1250L);
      org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
      config.setBusyTimeout(30_000);
      try (Connection own = config.createConnection(url)) {
        insert(own, order);
      }
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
