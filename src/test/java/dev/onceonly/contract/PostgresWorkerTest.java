package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link WorkerContract} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresWorkerTest extends WorkerContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
