package dev.onceonly.contract;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.PostgresContractDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;

/**
 * {@link RejectionStoreContract} on an empty PostgreSQL schema per test, through a HikariCP pool.
 */
class PostgresRejectionStoreTest extends RejectionStoreContract {
  private final PostgresContractDatabase pg = PostgresSchemas.create(this);

  @Override
  protected OnceOnly open(MutableClock clock, Consumer<OnceOnly.Builder> customize) {
    return PostgresSchemas.open(pg, clock, customize);
  }

  @Override
  protected Connection connect() throws SQLException {
    return pg.connect();
  }
}
