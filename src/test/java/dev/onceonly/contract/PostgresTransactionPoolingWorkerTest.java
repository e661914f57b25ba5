package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;
import dev.onceonly.testing.TransactionPoolingDataSource;

/**
 * {@link WorkerContract} on an empty PostgreSQL schema per test, through a {@link
 * TransactionPoolingDataSource}: every borrowed connection may be another backend, reset with
 * {@code DISCARD ALL}, as behind PgBouncer in transaction mode. See {@link
 * PostgresTransactionPoolingReceiptStoreTest} for how this was shown able to fail.
 */
class PostgresTransactionPoolingWorkerTest extends WorkerContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.transactionPooled();
  }
}
