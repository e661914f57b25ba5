package dev.onceonly.race;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;

/**
 * {@link MultiInstanceContract} on a schema of the durable embedded PostgreSQL server ({@code
 * fsync} and {@code synchronous_commit} on).
 */
class PostgresMultiInstanceTest extends MultiInstanceContract {
  private final PostgresContractDatabase pg = PostgresContractDatabase.durable();

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
