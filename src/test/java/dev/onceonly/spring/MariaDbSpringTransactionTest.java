package dev.onceonly.spring;

import dev.onceonly.testing.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * {@link SpringTransactionJoinContract} on the build's MariaDB server, a database of its own,
 * through Boot's HikariCP data source, every session in {@link MariaDbServer#SESSION_TIME_ZONE}.
 */
class MariaDbSpringTransactionTest extends SpringTransactionJoinContract {
  private final String database = MariaDbServer.newDatabase("spring_join");

  @Override
  Map<String, Object> properties() {
    return Map.of(
        "spring.datasource.url",
        MariaDbServer.url(database),
        "spring.datasource.hikari.maximum-pool-size",
        "12");
  }

  @Override
  Connection connect() throws SQLException {
    return MariaDbServer.connect(database);
  }
}
