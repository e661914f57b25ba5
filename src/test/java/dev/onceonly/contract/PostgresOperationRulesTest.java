package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/**
 * {@link OperationRulesContract} on an empty PostgreSQL schema per test, through a HikariCP pool.
 */
class PostgresOperationRulesTest extends OperationRulesContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
