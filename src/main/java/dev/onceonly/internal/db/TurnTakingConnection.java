package dev.onceonly.internal.db;

import dev.onceonly.internal.dialect.SqliteWriteTurn;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;

/**
 * An application's SQLite connection whose transactions take the file's {@link SqliteWriteTurn}:
 * turning auto-commit off (which makes sqlite-jdbc run {@code BEGIN IMMEDIATE}) waits for the turn
 * first, and the turn is handed back when auto-commit is turned on again or the connection is
 * closed. It is not handed back at {@code commit()} or {@code rollback()}, since sqlite-jdbc begins
 * the next transaction on the same connection at once and so still holds the file's lock.
 * Connections in deferred mode, whose {@code BEGIN} takes no lock, are not wrapped. A {@code BEGIN}
 * that fails (busy past the timeout) leaves the driver's auto-commit on again, as {@code
 * SqlitePooledDataSource} does for any pooled connection.
 */
public final class TurnTakingConnection extends DelegatingConnection {
  private final SQLiteConnection physical;

  private TurnTakingConnection(Connection target, SQLiteConnection physical) {
    super(target);
    this.physical = physical;
  }

  /**
   * Returns {@code c} wrapped when it is a SQLite connection whose transactions begin with a lock,
   * else {@code c} itself.
   *
   * @param c a connection from the application's data source
   * @return the connection to hand out
   */
  public static Connection wrap(Connection c) {
    if (c instanceof TurnTakingConnection) {
      return c;
    }
    SQLiteConnection physical = SqliteWriteTurn.sqlite(c);
    if (physical == null
        || physical.getConnectionConfig().getTransactionMode()
            == SQLiteConfig.TransactionMode.DEFERRED) {
      return c;
    }
    return new TurnTakingConnection(c, physical);
  }

  @Override
  public void setAutoCommit(boolean autoCommit) throws SQLException {
    boolean was = target.getAutoCommit();
    if (was && !autoCommit) {
      SqliteWriteTurn.enter(this, physical);
      try {
        target.setAutoCommit(false);
      } catch (SQLException | RuntimeException e) {
        // sqlite-jdbc turned its auto-commit off before the BEGIN that failed: with no
        // transaction open, say so again, or the next transaction on this pooled connection
        // would run without a BEGIN, each statement committing alone.
        physical.getConnectionConfig().setAutoCommit(true);
        SqliteWriteTurn.leave(this, physical);
        throw e;
      }
    } else if (!was && autoCommit) {
      try {
        target.setAutoCommit(true);
      } finally {
        SqliteWriteTurn.leave(this, physical);
      }
    } else {
      target.setAutoCommit(autoCommit);
    }
  }

  @Override
  public void close() throws SQLException {
    try {
      target.close(); // a pool ends the open transaction before it takes the connection back
    } finally {
      SqliteWriteTurn.leave(this, physical);
    }
  }

  @Override
  public void abort(Executor executor) throws SQLException {
    try {
      target.abort(executor);
    } finally {
      SqliteWriteTurn.leave(this, physical);
    }
  }
}
