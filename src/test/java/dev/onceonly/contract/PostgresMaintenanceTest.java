package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link MaintenanceContract} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresMaintenanceTest extends MaintenanceContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
