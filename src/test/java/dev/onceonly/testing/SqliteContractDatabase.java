package dev.onceonly.testing;

import dev.onceonly.OnceOnly;
import dev.onceonly.sql.Dialect;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.sqlite.SQLiteConfig;

/**
 * A SQLite file for one test (in the test's {@code @TempDir}). Caller connections wait for the
 * write lock like the library's own ({@code busy_timeout}), since workers may hold it while a test
 * sends.
 */
public final class SqliteContractDatabase implements ContractDatabase {
  private static final int BUSY_TIMEOUT_MILLIS = 10_000;

  private final Path file;

  private SqliteContractDatabase(Path file) {
    this.file = file;
  }

  /** Returns a database in a new file {@code contract.db} of {@code dir}. */
  public static SqliteContractDatabase in(Path dir) {
    return new SqliteContractDatabase(dir.resolve("contract.db"));
  }

  /** Returns the database file. */
  public Path file() {
    return file;
  }

  @Override
  public Dialect dialect() {
    return Dialect.SQLITE;
  }

  @Override
  public OnceOnly.Builder builder() {
    return OnceOnly.builder().sqlite(file);
  }

  @Override
  public Connection connect() throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(BUSY_TIMEOUT_MILLIS);
    return config.createConnection("jdbc:sqlite:" + file.toAbsolutePath());
  }

  @Override
  public void begin(Connection c) throws SQLException {
    run(c, "BEGIN IMMEDIATE");
  }

  @Override
  public void commit(Connection c) throws SQLException {
    run(c, "COMMIT");
  }

  @Override
  public void rollback(Connection c) throws SQLException {
    run(c, "ROLLBACK");
  }

  private static void run(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
