package dev.onceonly.spring.jpa;

import dev.onceonly.testing.EmbeddedPg;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/** {@link JpaShopContract} on the embedded PostgreSQL, a database of its own. */
class PostgresJpaShopTest extends JpaShopContract {
  private final String database = EmbeddedPg.newDatabase("spring_jpa");

  @Override
  Map<String, Object> properties() {
    return Map.of(
        "spring.datasource.url",
        EmbeddedPg.url(database),
        "spring.datasource.username",
        "postgres",
        "spring.datasource.hikari.connection-init-sql",
        EmbeddedPg.SET_TIME_ZONE,
        "spring.datasource.hikari.maximum-pool-size",
        "20");
  }

  @Override
  Connection connect() throws SQLException {
    return EmbeddedPg.connect(database);
  }

  @Override
  String textType() {
    return "TEXT";
  }
}
