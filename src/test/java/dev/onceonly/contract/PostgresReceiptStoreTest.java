package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link ReceiptStoreContract} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresReceiptStoreTest extends ReceiptStoreContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
