package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/**
 * {@link RejectionStoreContract} on an empty PostgreSQL schema per test, through a HikariCP pool.
 */
class PostgresRejectionStoreTest extends RejectionStoreContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
