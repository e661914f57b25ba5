package dev.onceonly.testing;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.sql.Dialect;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.Function;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * A SQLite file for one test (in the test's {@code @TempDir}). Caller connections wait for the
 * write lock like the library's own ({@code busy_timeout}), since workers may hold it while a test
 * sends.
 *
 * <p>Instances reach the file the way {@link #in} says (the default: {@code sqlite(file)}, with
 * group commit), or {@link #ungroupedIn} (group commit off) or {@link #throughDataSourceIn} (a
 * caller's {@link javax.sql.DataSource}).
 */
public final class SqliteContractDatabase implements ContractDatabase {
  private static final int BUSY_TIMEOUT_MILLIS = 10_000;

  /** How long a caller's {@link javax.sql.DataSource} waits for the write lock. */
  private static final int DATA_SOURCE_BUSY_TIMEOUT_MILLIS = 30_000;

  private final Path file;
  private final Function<Path, OnceOnlyBuilder> builders;

  private SqliteContractDatabase(Path file, Function<Path, OnceOnlyBuilder> builders) {
    this.file = file;
    this.builders = builders;
  }

  /** Returns a database in a new file {@code contract.db} of {@code dir}. */
  public static SqliteContractDatabase in(Path dir) {
    return new SqliteContractDatabase(
        dir.resolve("contract.db"), file -> OnceOnly.builder().sqlite(file));
  }

  /**
   * Returns a database in a new file of {@code dir} whose instances have group commit turned off
   * ({@code groupCommit(1, 0)}): one transaction per step, the other mode the library supports.
   */
  public static SqliteContractDatabase ungroupedIn(Path dir) {
    return new SqliteContractDatabase(
        dir.resolve("contract.db"),
        file -> OnceOnly.builder().sqlite(file).groupCommit(1, Duration.ZERO));
  }

  /**
   * Returns a database in a new file of {@code dir} whose instances reach it through a caller's
   * {@link javax.sql.DataSource} (WAL, a long busy timeout): a new connection per step, so threads
   * meet at SQLite's file lock.
   */
  public static SqliteContractDatabase throughDataSourceIn(Path dir) {
    return new SqliteContractDatabase(
        dir.resolve("contract.db"),
        file -> {
          SQLiteConfig config = new SQLiteConfig();
          config.setJournalMode(SQLiteConfig.JournalMode.WAL);
          config.setBusyTimeout(DATA_SOURCE_BUSY_TIMEOUT_MILLIS);
          SQLiteDataSource dataSource = new SQLiteDataSource(config);
          dataSource.setUrl("jdbc:sqlite:" + file.toAbsolutePath());
          return OnceOnly.builder().dataSource(dataSource);
        });
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
  public OnceOnlyBuilder builder() {
    return builders.apply(file);
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
