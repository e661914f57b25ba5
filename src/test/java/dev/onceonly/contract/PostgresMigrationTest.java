package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link MigrationContract} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresMigrationTest extends MigrationContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
