package dev.onceonly.testing;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link DrainLeaseContract} on the build's MariaDB server, each test its own tables. */
class DrainLeaseMariaDbTest extends DrainLeaseContract {
  private static HikariDataSource pool;

  @BeforeAll
  static void open() {
    pool = MariaDbServer.pool(MariaDbServer.newDatabase("drainlease"), 4);
  }

  @AfterAll
  static void close() {
    pool.close();
  }

  @Override
  OnceOnlyExtension extension() {
    return OnceOnlyExtension.mariadb(pool);
  }
}
