package dev.onceonly.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.maintenance.Audit;
import dev.onceonly.maintenance.Backlog;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.maintenance.StoreStatus;
import dev.onceonly.micrometer.OnceOnlyMetrics;
import dev.onceonly.micrometer.StoreGauges;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * The java blocks of docs/operations.md and of docs/observability.md's events and metrics, as they
 * are written there, run on a SQLite file; each test checks the rows, the files or the meters they
 * leave.
 */
class OperationsDocsTest extends SqliteDocsTest {
  /** The application's logger, as the docs call it: it keeps what it was given. */
  static final class Log {
    final List<String> lines = new CopyOnWriteArrayList<>();

    void info(String format, Object value) {
      lines.add(format.replace("{}", String.valueOf(value)));
    }

    void debug(String format, Object value) {
      info(format, value);
    }
  }

  private final Log log = new Log();

  private void charge(OnceOnly once, String order) throws SQLException {
    once.receipts()
        .execute(
            IntentKey.of("shop", order),
            "charge",
            Map.of("order", order),
            String.class,
            tx -> {
              tx.createStatement().execute("INSERT INTO charges VALUES ('" + order + "')");
              return "charged";
            });
  }

  @Test
  void theMaintenanceApiCountsPurgesMigratesAndAudits() throws SQLException {
    Db.exec(file(), "CREATE TABLE charges (order_id TEXT NOT NULL)");
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      charge(once, "o-1");
      once.queue().send("mail", "m-1", Map.of("to", "ada"));
      // ---- docs/operations.md, the maintenance API ----
      Maintenance m = once.maintenance();
      StoreStatus s = m.status(); // counts per table and state, schema version
      s.messages().get("mail"); // QueueCounts(due, leased, delayed)
      s.oldestPending(); // Optional<PendingIntent>: key, registeredAt, age
      Backlog b = m.backlog(); // the same without the receipts' totals: for polling
      Maintenance.SchemaVersion v = m.schemaVersion(); // found, required; isCurrent()

      LongConsumer progress = n -> log.info("purged {} so far", n);
      Maintenance.ReceiptPurge r = m.purgeReceipts(1_000, progress); // tombstoned, deleted
      long rejections = m.purgeRejections(Duration.ofDays(30), 1_000, progress);
      long deadLetters = m.purgeDeadLetters(Duration.ofDays(30), 1_000, progress);

      Maintenance.Migration done = m.migrate(version -> log.info("applied {}", version));

      Audit.Report a =
          m.audit(
              new Audit.Rules(
                  "charge", // onceonly verify, as an API
                  "SELECT order_id, COUNT(*) FROM charges GROUP BY order_id",
                  Duration.ofHours(1),
                  Duration.ofMinutes(5))); // a.clean(), a.counts(), a.findings()
      // ---- end ----
      assertThat(s.messages().get("mail").due()).isEqualTo(1);
      assertThat(b.messages()).isEqualTo(s.messages());
      assertThat(b.pendingIntents()).isEqualTo(s.pendingIntents());
      assertThat(s.oldestPending()).isEmpty();
      assertThat(v.isCurrent()).isTrue();
      assertThat(r.deleted() + r.tombstoned()).isZero(); // the receipt is within its retention
      assertThat(rejections + deadLetters).isZero();
      assertThat(done.after()).isEqualTo(done.before()); // nothing left to apply
      assertThat(log.lines).isEmpty();
      assertThat(a.clean()).as(a.findings().toString()).isTrue();
    }
    assertThat(rows("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(1);
    assertThat(rows("SELECT COUNT(*) FROM charges")).isEqualTo(1);
  }

  @Test
  void aRollbackJournalLeavesNoSharedMemoryFile() throws SQLException {
    Db.exec(file(), "CREATE TABLE charges (order_id TEXT NOT NULL)");
    java.nio.file.Path file = file();
    // ---- docs/operations.md, a rollback journal ----
    OnceOnly once =
        OnceOnly.builder().sqlite(file).journalMode(OnceOnly.JournalMode.DELETE).build();
    // ---- end ----
    try (once) {
      charge(once, "o-2");
      assertThat(Files.exists(dir.resolve("app.db-shm"))).isFalse();
      assertThat(Files.exists(dir.resolve("app.db-wal"))).isFalse();
    }
    assertThat(Db.strings(file(), "PRAGMA journal_mode")).containsExactly("delete");
    assertThat(rows("SELECT COUNT(*) FROM charges")).isEqualTo(1);
  }

  /** {@code Path.of} in the docs' listener example: {@code app.db} in the test's directory. */
  final class Path {
    java.nio.file.Path of(String name) {
      return dir.resolve(name);
    }
  }

  @Test
  void aListenerReceivesTheEventsOfTheStore() throws SQLException {
    Path Path = new Path(); // the docs' Path.of, resolved in the test's directory
    Db.exec(file(), "CREATE TABLE charges (order_id TEXT NOT NULL)");
    // ---- docs/observability.md, a listener ----
    OnceOnly once =
        OnceOnly.builder()
            .sqlite(Path.of("app.db"))
            .listener(event -> log.debug("{}", event)) // any number of listeners
            .build();
    // ---- end ----
    try (once) {
      charge(once, "o-3");
      Eventually.await(
          Duration.ofSeconds(20),
          "the step's event",
          () -> log.lines.stream().anyMatch(l -> l.contains("charge")));
    }
    assertThat(rows("SELECT COUNT(*) FROM charges")).isEqualTo(1);
  }

  @Test
  void theMetersCountTheStepsAndTheGaugesReadTheRows() throws SQLException {
    Db.exec(file(), "CREATE TABLE charges (order_id TEXT NOT NULL)");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    java.nio.file.Path file = file();
    // ---- docs/observability.md, metrics ----
    OnceOnlyMetrics metrics = OnceOnlyMetrics.of(registry); // a listener
    OnceOnly once = OnceOnly.builder().sqlite(file).listener(metrics).build();
    metrics.bindDropped(once.events());
    StoreGauges gauges = StoreGauges.of(once.maintenance(), Duration.ofSeconds(30));
    gauges.bindTo(registry); // close() it with the store
    // ---- end ----
    try (once;
        gauges) {
      charge(once, "o-4");
      charge(once, "o-4");
      once.queue().send("mail", "m-1", Map.of("to", "ada"));
      gauges.sample();
      Eventually.await(
          Duration.ofSeconds(20),
          "two steps counted",
          () ->
              registry.find("onceonly.receipts.outcomes").counters().stream()
                      .mapToDouble(c -> c.count())
                      .sum()
                  == 2);
      assertThat(registry.find("onceonly.queue.messages").tag("queue", "mail").gauges())
          .isNotEmpty();
    }
    assertThat(rows("SELECT COUNT(*) FROM charges")).isEqualTo(1);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_messages")).isEqualTo(1);
  }
}
