package dev.onceonly.race;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.MariaDbContractDatabase;

/** {@link MultiInstanceContract} on a database of the build's MariaDB server. */
class MariaDbMultiInstanceTest extends MultiInstanceContract {
  private final MariaDbContractDatabase mariadb = MariaDbContractDatabase.create();

  @Override
  ContractDatabase database() {
    return mariadb;
  }

  @Override
  String url() {
    return mariadb.url();
  }

  @Override
  void close() {
    mariadb.close();
  }
}
