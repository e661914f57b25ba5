package dev.onceonly.external;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link FailureClassTest} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresFailureClassTest extends FailureClassTest {
  @Override
  ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
