package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.ContractDatabases;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.PostgresContractDatabase;
import dev.onceonly.testing.SqliteContractDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The crash harness's checks catch what they are there to catch: each test plants one violation in
 * an otherwise sound store and expects the check after a kill to fail naming it. On a SQLite file
 * and on a PostgreSQL schema, whose integrity check also catches a unique key that holds a
 * duplicate.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#sqliteAndPostgresql")
class CrashHarnessChecksTest {
  /** The database this run is on, one of {@link ContractDatabases}. */
  @Parameter ContractDatabases.Factory database;

  @TempDir Path dir;
  CrashTarget target;
  private CrashHarness harness;

  /** Returns a new, empty store for one test, on this run's database. */
  private CrashTarget newTarget() {
    ContractDatabase db = database.create(dir);
    return db instanceof SqliteContractDatabase sqlite
        ? new CrashTarget.Sqlite(sqlite.file())
        : new PostgresCrashTarget(
            ((PostgresContractDatabase) db).url(), EmbeddedPg.SESSION_TIME_ZONE);
  }

  @BeforeEach
  void soundStore() throws SQLException {
    target = newTarget();
    harness = new CrashHarness(target, new CrashHarness.Settings(1, 1, 1, dir));
    try (OnceOnly once = open()) {
      once.intents().register(CrashWorkloadMain.key(0), "apply", CrashWorkloadMain.arguments(0));
      once.receipts()
          .execute(
              CrashWorkloadMain.key(0),
              "apply",
              CrashWorkloadMain.arguments(0),
              Integer.class,
              tx -> 0);
    }
    CrashWorkloadMain.createEffectTable(target);
    exec("INSERT INTO crash_effects VALUES ('crash', 'c-0', 'w', 0)");
  }

  @AfterEach
  void closeTarget() {
    target.close();
  }

  private OnceOnly open() {
    return target.open(Clock.systemUTC());
  }

  void exec(String sql) throws SQLException {
    try (Connection c = target.connect();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Test
  void aSoundStorePasses() {
    assertThatCode(() -> harness.check(0, "sound", true)).doesNotThrowAnyException();
  }

  @Test
  void aSecondEffectIsCaught() throws SQLException {
    exec("INSERT INTO crash_effects VALUES ('crash', 'c-0', 'w', 0)");
    expectCaught("more than one effect");
  }

  @Test
  void anEffectWithoutItsReceiptIsCaught() throws SQLException {
    exec("INSERT INTO crash_effects VALUES ('crash', 'c-9', 'w', 9)");
    expectCaught("effects without a receipt");
  }

  @Test
  void aReceiptWithoutItsEffectIsCaught() throws SQLException {
    exec("DELETE FROM crash_effects");
    expectCaught("receipts without an effect");
  }

  @Test
  void anIntentWhoseMessageWasDeadLetteredIsCaughtAsLost() {
    try (OnceOnly once = open()) {
      once.intents().register(CrashWorkloadMain.key(1), "apply", CrashWorkloadMain.arguments(1));
      // Dead-lettered: the reconciler leaves it for an operator, so it counts as lost.
      once.queue().send("crash", "crash/c-1", Map.of("n", 1));
      Delivery d = once.queue().receive("crash", 1, Duration.ofSeconds(30)).get(0);
      once.queue().deadLetter(d.lease(), "poison");
    }
    expectCaught("intents without a receipt and without a message (lost): [c-1]");
  }

  @Test
  void anIntentLeftPendingAfterTheDrainIsCaught() {
    try (OnceOnly once = open()) {
      once.intents().register(CrashWorkloadMain.key(1), "apply", CrashWorkloadMain.arguments(1));
    }
    // After a kill it is not lost: the reconcile pass publishes it again.
    assertThatCode(() -> harness.check(0, "after a kill", false)).doesNotThrowAnyException();
    assertThatThrownBy(() -> harness.check(0, "drained", true))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("without a receipt after the drain");
  }

  void expectCaught(String what) {
    assertThatThrownBy(() -> harness.check(0, "planted", false))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(what)
        .hasMessageContaining("seed 1, iteration 0");
  }

  @Test
  void aUniqueKeyHoldingADuplicateIsAnIntegrityProblem() throws SQLException {
    assumeTrue(target instanceof PostgresCrashTarget, "a PostgreSQL catalogue");
    // What a damaged index would let in: duplicates under an index the catalogue calls unique.
    // Only a superuser's catalogue update plants it; the embedded server runs as one.
    exec("CREATE TABLE planted (k TEXT NOT NULL)");
    exec("INSERT INTO planted VALUES ('twice'), ('twice')");
    exec("CREATE INDEX planted_k ON planted (k)");
    exec("UPDATE pg_index SET indisunique = true WHERE indexrelid = 'planted_k'::regclass");
    expectCaught("planted: duplicate key (k) = twice");
  }
}
