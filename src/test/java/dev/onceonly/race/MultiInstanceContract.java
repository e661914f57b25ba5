package dev.onceonly.race;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three application instances (child JVMs, each with its own HikariCP pool) on one server database
 * (PostgreSQL, MariaDB; a subclass each): each sends the same 3,000 keys in its own order and works
 * the queue. One instance is killed with SIGKILL while it holds leases; a replacement starts. In
 * the end every key has exactly one effect row and one receipt, and no message is left: the dead
 * instance's claims were taken over after their leases ran out.
 */
abstract class MultiInstanceContract {
  private static final int KEYS = 3_000;
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  @TempDir Path logs;

  /** {@return the new, empty database of this test} */
  abstract ContractDatabase database();

  /** {@return the JDBC URL of {@link #database()} for the child processes} */
  abstract String url();

  /** Closes what {@link #database()} opened. */
  abstract void close();

  private ContractDatabase db;

  @AfterEach
  void closePools() {
    close();
  }

  /**
   * {@code with}: each handler commits its effect with {@code completeWith}; {@code later}: with
   * {@code completeLater}, so the victim dies with handed-over batches not yet committed.
   */
  @ParameterizedTest(name = "complete{0}")
  @ValueSource(strings = {"with", "later"})
  void threeInstancesOneKilledEveryIntentHasExactlyOneEffect(String complete) throws Exception {
    db = database();
    // No unique constraint on purpose: only the receipts keep an effect from committing twice.
    db.exec("CREATE TABLE effects (message_key TEXT NOT NULL, holder TEXT NOT NULL)");
    // Migrate once up front; the instances then race only on the queue and the receipts.
    try (OnceOnly migrated = db.builder().build()) {
      assertThat(migrated.dialect()).isEqualTo(db.dialect());
    }
    String url = url();
    try (ChildJvm.Group group = new ChildJvm.Group()) {
      List<ChildJvm> instances = new ArrayList<>();
      for (String name : List.of("a", "b", "victim")) {
        instances.add(group.add(start(name, url, complete)));
      }
      for (ChildJvm child : instances) {
        child.awaitLine("ready", TIMEOUT);
      }
      ChildJvm victim = instances.get(2);
      // Killed mid-run: it has made effects and still has sends ahead of it.
      victim.awaitLine("done worker=victim n=100", TIMEOUT);
      victim.kill();
      ChildJvm replacement = group.add(start("replacement", url, complete));
      replacement.awaitLine("ready", TIMEOUT);
      for (ChildJvm child : List.of(instances.get(0), instances.get(1), replacement)) {
        child.awaitLine("sent-all", TIMEOUT);
      }
      Eventually.await(
          TIMEOUT,
          "the queue drained, the dead instance's leases taken over",
          () ->
              db.count("SELECT COUNT(*) FROM onceonly_messages") == 0
                  && db.count("SELECT COUNT(DISTINCT message_key) FROM effects") == KEYS);

      assertThat(db.count("SELECT COUNT(*) FROM effects")).isEqualTo(KEYS);
      assertThat(
              db.count(
                  "SELECT COUNT(*) FROM (SELECT message_key FROM effects"
                      + " GROUP BY message_key HAVING COUNT(*) > 1) d"))
          .as("duplicate effects")
          .isZero();
      assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(KEYS);
      // compared here, not joined: MariaDB would refuse to compare the two columns' collations
      assertThat(db.strings("SELECT intent_key FROM onceonly_receipts"))
          .as("receipts of the effects")
          .containsExactlyInAnyOrderElementsOf(db.strings("SELECT message_key FROM effects"));
      assertThat(db.count("SELECT COUNT(DISTINCT holder) FROM effects"))
          .as("instances that made effects")
          .isGreaterThanOrEqualTo(3);
      assertThat(db.count("SELECT COUNT(*) FROM effects WHERE holder = 'victim'"))
          .as("effects the victim committed before it died")
          .isPositive();
    }
  }

  private ChildJvm start(String name, String url, String complete) {
    return ChildJvm.start(
        name,
        logs,
        PostgresQueueWorkerMain.class,
        "url=" + url,
        "worker=" + name,
        "keys=" + KEYS,
        "threads=3",
        "leaseMs=2000",
        "complete=" + complete);
  }
}
