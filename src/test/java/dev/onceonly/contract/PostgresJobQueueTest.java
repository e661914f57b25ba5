package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link JobQueueContract} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresJobQueueTest extends JobQueueContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
