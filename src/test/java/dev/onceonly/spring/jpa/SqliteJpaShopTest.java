package dev.onceonly.spring.jpa;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;

/**
 * {@link JpaShopContract} on a SQLite file, with Hibernate's community dialect and the URL
 * docs/spring.md gives (the busy timeout long, so that a second writer that waited would show).
 */
class SqliteJpaShopTest extends JpaShopContract {
  private final Path file;

  SqliteJpaShopTest() {
    try {
      file = Files.createTempDirectory("onceonly-jpa").resolve("shop.db");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  Map<String, Object> properties() {
    return Map.of(
        "spring.datasource.url",
        "jdbc:sqlite:" + file + "?transaction_mode=IMMEDIATE&busy_timeout=60000",
        "spring.datasource.hikari.maximum-pool-size",
        "12",
        "spring.datasource.hikari.connection-init-sql",
        "PRAGMA journal_mode=WAL",
        "spring.jpa.database-platform",
        "org.hibernate.community.dialect.SQLiteDialect");
  }

  @Override
  Connection connect() throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + file);
  }

  @Override
  String textType() {
    return "TEXT";
  }

  @Override
  boolean secondWriterOnOneThread() {
    return false;
  }
}
