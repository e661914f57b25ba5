package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link IdentifierContract} on an empty PostgreSQL schema per test, through a HikariCP pool. */
class PostgresIdentifierTest extends IdentifierContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }
}
