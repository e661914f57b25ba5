package dev.onceonly.race;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/** {@link MultiInstanceContract} on a schema of the embedded PostgreSQL server. */
class PostgresMultiInstanceTest extends MultiInstanceContract {
  private final PostgresContractDatabase pg = PostgresContractDatabase.create();

  @Override
  ContractDatabase database() {
    return pg;
  }

  @Override
  String url() {
    return pg.url();
  }

  @Override
  void close() {
    pg.close();
  }
}
