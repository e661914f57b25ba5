package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link ReconcilerContract} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresReconcilerTest extends ReconcilerContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
