package dev.onceonly.spring;

import dev.onceonly.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;

/**
 * Checks that a SQLite data source begins its transactions {@code IMMEDIATE}. Spring begins one
 * with {@code setAutoCommit(false)}; the driver's default turns that into a deferred {@code BEGIN},
 * which takes the write lock only at the first write. Two such transactions that both read first (a
 * receipts step always does) then fail with {@code SQLITE_BUSY} at once, busy timeout or not, since
 * SQLite cannot let either wait for the other without a deadlock.
 */
final class SqliteTransactionMode {
  private static final System.Logger LOG =
      System.getLogger(OnceOnlyAutoConfiguration.class.getName());

  private SqliteTransactionMode() {}

  static void check(DataSource dataSource, OnceOnlyProperties.Sqlite settings) {
    SQLiteConfig.TransactionMode mode = mode(dataSource);
    if (mode == null || mode != SQLiteConfig.TransactionMode.DEFERRED) {
      return;
    }
    String problem =
        "the SQLite data source begins DEFERRED transactions: steps joining concurrent Spring"
            + " transactions fail with SQLITE_BUSY instead of waiting";
    String action =
        "add transaction_mode=IMMEDIATE to the JDBC URL"
            + " (jdbc:sqlite:app.db?transaction_mode=IMMEDIATE) or set it with"
            + " SQLiteConfig.setTransactionMode";
    if (!settings.allowDeferredTransactions()) {
      throw new OnceOnlyConfigurationException(
          problem,
          action + ", or set onceonly.sqlite.allow-deferred-transactions=true to start anyway",
          null);
    }
    LOG.log(System.Logger.Level.WARNING, problem + "; " + action);
  }

  /** Returns the driver's transaction mode, or null when the connection is not sqlite-jdbc's. */
  private static SQLiteConfig.TransactionMode mode(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      if (!c.isWrapperFor(SQLiteConnection.class)) {
        return null;
      }
      return c.unwrap(SQLiteConnection.class).getConnectionConfig().getTransactionMode();
    } catch (SQLException e) {
      throw new StoreException("cannot read the SQLite transaction mode", "sqlite", e);
    }
  }
}
