package dev.onceonly.external;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link CompensationTest} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresCompensationTest extends CompensationTest {
  @Override
  ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
