package dev.onceonly.external;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link ClaimFlowTest} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresClaimFlowTest extends ClaimFlowTest {
  @Override
  ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
