package dev.onceonly.contract;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ReceiptStoreContract} on a SQLite file with group commit turned off ({@code groupCommit(1,
 * 0)}): one transaction per step, the other mode the library supports.
 */
class SqliteUngroupedReceiptStoreTest extends ReceiptStoreContract {
  @TempDir Path dir;

  @Override
  protected OnceOnly open(MutableClock clock, Consumer<OnceOnly.Builder> customize) {
    return SqliteFiles.open(dir, clock, b -> customize.accept(b.groupCommit(1, Duration.ZERO)));
  }

  @Override
  protected Connection connect() throws SQLException {
    return Db.open(SqliteFiles.file(dir));
  }
}
