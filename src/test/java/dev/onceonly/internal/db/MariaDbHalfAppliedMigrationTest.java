package dev.onceonly.internal.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.sql.Dialect;
import dev.onceonly.testing.MariaDbContractDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * MariaDB commits at each DDL statement, so a migration cut off (a killed process, a lost
 * connection) leaves some statements of a script applied and its version unrecorded, or a script
 * applied whole with its version row lost. The next migration must then finish the job. The
 * reference is a migration of an empty database: after the cut and the migration, the tables,
 * columns and indexes are the same as there.
 */
class MariaDbHalfAppliedMigrationTest {
  private static final String PREFIX = "onceonly_";

  @Test
  void aMigrationCutAnywhereIsFinishedByTheNext() throws SQLException {
    List<String> reference;
    try (MariaDbContractDatabase clean = MariaDbContractDatabase.create()) {
      migrator(clean).migrate();
      reference = schema(clean);
    }
    Random random = new Random(29);
    int total = allStatements().size();
    // a cut after the first statement, one before the last, and two anywhere
    int[] cuts = {1, total - 1, 1 + random.nextInt(total - 2), 1 + random.nextInt(total - 2)};
    for (int cut : cuts) {
      try (MariaDbContractDatabase db = MariaDbContractDatabase.create()) {
        int recorded = applyFirst(db, cut);
        Migrator migrator = migrator(db);
        assertThat(migrator.migrate()).as("cut after statement %d", cut).isEqualTo(recorded);
        assertThat(migrator.recordedVersion()).isEqualTo(Migrator.latestVersion());
        assertThat(schema(db)).as("cut after statement %d", cut).isEqualTo(reference);
      }
    }
  }

  private static Migrator migrator(MariaDbContractDatabase db) {
    return new Migrator(
        new DataSourceDatabase(Dialect.MARIADB, db.pool(2)), PREFIX, InstantSource.system());
  }

  /**
   * Runs the first {@code cut} statements of the scripts as the migrator would, recording the
   * version of each script that ran whole but the last one (its row lost with the cut), and returns
   * the version recorded.
   */
  private static int applyFirst(MariaDbContractDatabase db, int cut) throws SQLException {
    Migrator migrator = migrator(db);
    int recorded = 0;
    int done = 0;
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE "
              + PREFIX
              + "schema_version (version INTEGER NOT NULL PRIMARY KEY,"
              + " description TEXT NOT NULL, applied_at DATETIME(6) NOT NULL)");
      int previousWhole = 0;
      for (String script : Migrator.SCRIPTS) {
        List<String> statements = migrator.statements(script);
        for (String statement : statements) {
          if (done == cut) {
            return recorded;
          }
          s.execute(statement);
          done++;
        }
        if (previousWhole > 0) {
          record(c, previousWhole);
          recorded = previousWhole;
        }
        previousWhole = Migrator.version(script);
      }
    }
    return recorded;
  }

  private static void record(Connection c, int version) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + PREFIX
                + "schema_version (version, description, applied_at)"
                + " VALUES (?, 'cut', UTC_TIMESTAMP(6))")) {
      ps.setInt(1, version);
      ps.executeUpdate();
    }
  }

  private static List<String> allStatements() {
    Migrator migrator =
        new Migrator(new DataSourceDatabase(Dialect.MARIADB, null), PREFIX, InstantSource.system());
    List<String> all = new ArrayList<>();
    for (String script : Migrator.SCRIPTS) {
      all.addAll(migrator.statements(script));
    }
    return all;
  }

  /** Every column (with its type, nullability and collation) and every index column. */
  private static List<String> schema(MariaDbContractDatabase db) {
    TreeSet<String> out = new TreeSet<>();
    out.addAll(
        db.strings(
            "SELECT CONCAT_WS(' ', table_name, column_name, column_type, is_nullable,"
                + " IFNULL(collation_name, '-'), IFNULL(column_default, '-'))"
                + " FROM information_schema.columns WHERE table_schema = DATABASE()"));
    out.addAll(
        db.strings(
            "SELECT CONCAT_WS(' ', table_name, index_name, seq_in_index, column_name, non_unique)"
                + " FROM information_schema.statistics WHERE table_schema = DATABASE()"));
    return new ArrayList<>(out);
  }
}
