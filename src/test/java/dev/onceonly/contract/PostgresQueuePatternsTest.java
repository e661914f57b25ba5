package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/**
 * {@link QueuePatternsContract} on an empty PostgreSQL schema per test, through a HikariCP pool.
 */
class PostgresQueuePatternsTest extends QueuePatternsContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
