package dev.onceonly.contract;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;

/** {@link MaintenanceContract} on a SQLite file of its own per test. */
class SqliteMaintenanceTest extends MaintenanceContract {
  @TempDir Path dir;

  @Override
  protected OnceOnly open(MutableClock clock, Consumer<OnceOnly.Builder> customize) {
    return SqliteFiles.open(dir, clock, customize);
  }

  @Override
  protected Connection connect() throws SQLException {
    return Db.open(SqliteFiles.file(dir));
  }
}
