package dev.onceonly.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link SpringTransactionJoinContract} on a SQLite file through Boot's pooled data source, with
 * the driver's {@code transaction_mode=IMMEDIATE}, as docs/spring.md tells Spring users to set.
 */
class SqliteSpringTransactionTest extends SpringTransactionJoinContract {
  private final Path dir;
  private final Path file;

  SqliteSpringTransactionTest() {
    try {
      dir = Files.createTempDirectory("onceonly-spring");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    file = dir.resolve("shop.db");
  }

  static String url(Path file) {
    return "jdbc:sqlite:" + file + "?transaction_mode=IMMEDIATE&busy_timeout=10000";
  }

  @Override
  Map<String, Object> properties() {
    return Map.of(
        "spring.datasource.url", url(file),
        "spring.datasource.hikari.maximum-pool-size", "12",
        "spring.datasource.hikari.connection-init-sql", "PRAGMA journal_mode=WAL");
  }

  @Override
  Connection connect() throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + file);
  }

  @AfterAll
  void deleteFiles() throws IOException {
    try (var files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Files.delete(p);
      }
    }
    Files.delete(dir);
  }
}
