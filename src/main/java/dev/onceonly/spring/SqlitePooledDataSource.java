package dev.onceonly.spring;

import dev.onceonly.sql.SqliteWriteTurns;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.sqlite.SQLiteConnection;

/**
 * A pool of SQLite connections whose connections are handed out in the transaction state they are
 * really in. sqlite-jdbc turns auto-commit off before it runs {@code BEGIN}; when that {@code
 * BEGIN} fails (busy past the timeout while another writer holds the file's lock), the connection
 * says auto-commit is off while SQLite has no transaction open. A pool does not see the change, as
 * it failed, so it hands the connection out again as it is: Spring then runs the next transaction
 * on it without a {@code BEGIN}, every statement commits on its own, and the rollback fails. This
 * data source checks each connection it hands out and, in that state, turns the driver's
 * auto-commit back on, so the next transaction begins for real.
 *
 * <p>Its connections' transactions also take the file's turn in this process, as {@link
 * dev.onceonly.sql.SqliteWriteTurns} describes: the application's writers and the store's queue in
 * memory instead of sleeping in SQLite's busy handler.
 *
 * <p>The auto-configuration wraps an application's HikariCP pool on a SQLite URL in it; wrap any
 * other pool of SQLite connections yourself ({@code new SqlitePooledDataSource(pool)}). It expects
 * the pool's default of auto-commit on: a connection that is in a transaction is left as it is. See
 * docs/spring.md.
 */
// Spring's types are the application's: nothing to re-export.
@SuppressWarnings("exports")
public class SqlitePooledDataSource extends DelegatingDataSource {
  /**
   * Wraps a pool.
   *
   * @param pool the pool of SQLite connections
   */
  public SqlitePooledDataSource(DataSource pool) {
    super(SqliteWriteTurns.wrap(pool));
  }

  @Override
  public Connection getConnection() throws SQLException {
    return checked(super.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return checked(super.getConnection(username, password));
  }

  @Override
  public String toString() {
    return "SqlitePooledDataSource[" + getTargetDataSource() + "]";
  }

  /** Returns {@code c}, its driver's auto-commit turned back on if it says off with no BEGIN. */
  static Connection checked(Connection c) throws SQLException {
    try {
      if (c.isWrapperFor(SQLiteConnection.class)) {
        SQLiteConnection sqlite = c.unwrap(SQLiteConnection.class);
        if (!sqlite.getAutoCommit() && !inTransaction(sqlite)) {
          sqlite.getConnectionConfig().setAutoCommit(true);
        }
      }
      return c;
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * Whether SQLite has a transaction open on the connection: a deferred {@code BEGIN}, which takes
   * no lock, is refused inside one and otherwise rolled back at once.
   */
  private static boolean inTransaction(SQLiteConnection sqlite) {
    try {
      sqlite.getDatabase().exec("BEGIN DEFERRED", false);
    } catch (SQLException e) {
      return true; // "cannot start a transaction within a transaction"
    }
    try {
      sqlite.getDatabase().exec("ROLLBACK", false);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot end the probe of the SQLite connection", e);
    }
    return false;
  }
}
