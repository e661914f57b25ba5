package dev.onceonly.testing;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link DrainLeaseContract} on embedded PostgreSQL, each test its own tables. */
class DrainLeasePostgresTest extends DrainLeaseContract {
  private static HikariDataSource pool;

  @BeforeAll
  static void open() {
    pool = EmbeddedPg.pool(EmbeddedPg.newDatabase("drainlease"), 4);
  }

  @AfterAll
  static void close() {
    pool.close();
  }

  @Override
  OnceOnlyExtension extension() {
    return OnceOnlyExtension.postgresql(pool);
  }
}
