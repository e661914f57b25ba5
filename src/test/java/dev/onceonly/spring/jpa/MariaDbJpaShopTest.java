package dev.onceonly.spring.jpa;

import dev.onceonly.testing.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/** {@link JpaShopContract} on the build's MariaDB server, a database of its own. */
class MariaDbJpaShopTest extends JpaShopContract {
  private final String database = MariaDbServer.newDatabase("spring_jpa");

  @Override
  Map<String, Object> properties() {
    return Map.of(
        "spring.datasource.url",
        MariaDbServer.url(database),
        "spring.datasource.hikari.maximum-pool-size",
        "20");
  }

  @Override
  Connection connect() throws SQLException {
    return MariaDbServer.connect(database);
  }

  @Override
  String textType() {
    return "VARCHAR(500)";
  }
}
