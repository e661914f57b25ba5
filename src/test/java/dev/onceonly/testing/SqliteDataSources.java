package dev.onceonly.testing;

import java.nio.file.Path;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/** The application's SQLite data source as the docs configure it: WAL, a busy timeout, a mode. */
public final class SqliteDataSources {
  private SqliteDataSources() {}

  /**
   * A data source on {@code file} in WAL mode.
   *
   * @param mode how its transactions begin ({@code IMMEDIATE} takes the write lock at once, and the
   *     file's turn when wrapped in {@link dev.onceonly.sql.SqliteWriteTurns})
   * @param busyTimeoutMillis how long a connection waits for the file's lock
   */
  public static SQLiteDataSource wal(
      Path file, SQLiteConfig.TransactionMode mode, int busyTimeoutMillis) {
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setBusyTimeout(busyTimeoutMillis);
    config.setTransactionMode(mode);
    SQLiteDataSource ds = new SQLiteDataSource(config);
    ds.setUrl("jdbc:sqlite:" + file);
    return ds;
  }
}
