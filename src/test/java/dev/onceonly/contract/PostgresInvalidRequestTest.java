package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/**
 * {@link InvalidRequestContract} on an empty PostgreSQL schema per test, through a HikariCP pool.
 */
class PostgresInvalidRequestTest extends InvalidRequestContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
