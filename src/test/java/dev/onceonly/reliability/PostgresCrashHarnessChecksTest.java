package dev.onceonly.reliability;

import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.PostgresContractDatabase;
import java.nio.file.Path;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * The crash harness's checks catch each planted violation on a PostgreSQL schema too, and its
 * integrity check catches a unique key that holds a duplicate.
 */
class PostgresCrashHarnessChecksTest extends CrashHarnessChecksTest {
  @Override
  CrashTarget newTarget(Path dir) {
    return new PostgresCrashTarget(
        PostgresContractDatabase.create().url(), EmbeddedPg.SESSION_TIME_ZONE);
  }

  @Test
  void aUniqueKeyHoldingADuplicateIsAnIntegrityProblem() throws SQLException {
    // What a damaged index would let in: duplicates under an index the catalogue calls unique.
    // Only a superuser's catalogue update plants it; the embedded server runs as one.
    exec("CREATE TABLE planted (k TEXT NOT NULL)");
    exec("INSERT INTO planted VALUES ('twice'), ('twice')");
    exec("CREATE INDEX planted_k ON planted (k)");
    exec("UPDATE pg_index SET indisunique = true WHERE indexrelid = 'planted_k'::regclass");
    expectCaught("planted: duplicate key (k) = twice");
  }
}
