package dev.onceonly.contract;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * {@link ReceiptStoreContract} on a SQLite file reached through a caller's {@link
 * javax.sql.DataSource}: a new connection per step, so threads meet at SQLite's file lock.
 */
class SqliteDataSourceReceiptStoreTest extends ReceiptStoreContract {
  @TempDir Path dir;

  @Override
  protected OnceOnly open(MutableClock clock, Consumer<OnceOnly.Builder> customize) {
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setBusyTimeout(30_000);
    SQLiteDataSource dataSource = new SQLiteDataSource(config);
    dataSource.setUrl("jdbc:sqlite:" + SqliteFiles.file(dir).toAbsolutePath());
    OnceOnly.Builder builder = OnceOnly.builder().dataSource(dataSource).clock(clock);
    customize.accept(builder);
    return builder.build();
  }

  @Override
  protected Connection connect() throws SQLException {
    return Db.open(SqliteFiles.file(dir));
  }
}
