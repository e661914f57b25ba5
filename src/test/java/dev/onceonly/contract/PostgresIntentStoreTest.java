package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link IntentStoreContract} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresIntentStoreTest extends IntentStoreContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
