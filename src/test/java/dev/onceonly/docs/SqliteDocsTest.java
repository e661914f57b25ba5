package dev.onceonly.docs;

import dev.onceonly.testing.Db;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test of the docs' blocks on a SQLite file of its own, its rows read through a new connection.
 */
abstract class SqliteDocsTest {
  @TempDir Path dir;

  /** The store's file, {@code app.db} in the test's directory. */
  Path file() {
    return dir.resolve("app.db");
  }

  /** The one number {@code sql} counts in the file. */
  long rows(String sql) {
    return Db.count(file(), sql);
  }
}
