package dev.onceonly.contract;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.SqliteContractDatabase;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link InTransactionContract} on a SQLite file per test, with group commit (the default). */
class SqliteInTransactionTest extends InTransactionContract {
  @TempDir Path dir;

  @Override
  protected ContractDatabase newDatabase() {
    return SqliteContractDatabase.in(dir);
  }
}
