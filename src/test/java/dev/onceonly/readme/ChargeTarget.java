package dev.onceonly.readme;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.FaultPoints;
import dev.onceonly.testing.FaultTarget;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The fault-injection target of docs/testing.md, verbatim: the application charges through its own
 * data source, and the receipt joins the charge's transaction on the same connection.
 */
public final class ChargeTarget implements FaultTarget {
  private DataSource dataSource;

  public void prepare(OnceOnly once, DataSource dataSource) throws Exception {
    this.dataSource = dataSource; // the application's connections, killed after each commit
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS charges (order_id TEXT NOT NULL, cents INTEGER NOT NULL)");
    }
  }

  public void run(OnceOnly once, String order) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      once.receipts()
          .execute(
              c,
              IntentKey.of("charges", order),
              "charge",
              Map.of("order", order),
              Long.class,
              tx -> ChargeTargets.insert(tx, order));
      FaultPoints.reached("charged, not committed");
      c.commit();
    }
  }
}
