package dev.onceonly.external;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link CancellationTest} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresCancellationTest extends CancellationTest {
  @Override
  ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
