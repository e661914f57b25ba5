package dev.onceonly.bench;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.sqlite.SQLiteConfig;

/** Temporary SQLite files and raw connections configured like the library's own. */
final class BenchDb {
  private BenchDb() {}

  static Path newFile() {
    try {
      return Files.createTempDirectory("onceonly-bench").resolve("bench.db");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A raw connection with the same pragmas OnceOnly uses: WAL, busy_timeout, synchronous. */
  static Connection raw(Path file, String synchronous) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setSynchronous(SQLiteConfig.SynchronousMode.valueOf(synchronous));
    config.setBusyTimeout(60_000);
    return config.createConnection("jdbc:sqlite:" + file.toAbsolutePath());
  }

  static OnceOnly open(Path file, String synchronous) {
    return builder(file, synchronous).build();
  }

  /** The builder {@link #open} builds, for a store with settings of its own. */
  static OnceOnlyBuilder builder(Path file, String synchronous) {
    return OnceOnly.builder()
        .sqlite(file)
        .synchronous(OnceOnly.Synchronous.valueOf(synchronous))
        .busyTimeout(Duration.ofSeconds(60));
  }

  /** Creates the library's own tables under the prefix {@code raw_}, for the raw loops. */
  static void createRawTables(Path file, String synchronous) {
    OnceOnly.builder()
        .sqlite(file)
        .tablePrefix("raw_")
        .synchronous(OnceOnly.Synchronous.valueOf(synchronous))
        .busyTimeout(Duration.ofSeconds(60))
        .build()
        .close();
  }

  static void exec(Connection c, String... sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    }
  }

  /** The one number a {@code SELECT COUNT(*)} query answers. */
  static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static void delete(Path file) {
    try (Stream<Path> files = Files.list(file.getParent())) {
      files.sorted(Comparator.reverseOrder()).forEach(BenchDb::deleteQuietly);
      Files.deleteIfExists(file.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
