package dev.onceonly.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.Reconciler;
import dev.onceonly.queue.CatchUp;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.ScheduleSpec;
import dev.onceonly.queue.Schedules;
import dev.onceonly.queue.SendConflictException;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Uniqueness;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Drain;
import dev.onceonly.testing.Eventually;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The java blocks of docs/queue.md, as they are written there, run on a SQLite file; each test
 * counts the rows they leave through a fresh connection.
 */
class QueueDocsTest extends SqliteDocsTest {
  /** The application's own JDBC code: one row per call, through the connection it is given. */
  private static void insert(Connection tx, String sql, Object... values) throws SQLException {
    try (PreparedStatement ps = tx.prepareStatement(sql)) {
      for (int i = 0; i < values.length; i++) {
        ps.setObject(i + 1, values[i]);
      }
      ps.executeUpdate();
    }
  }

  private static void insertUser(Connection tx, String id, String name) throws SQLException {
    insert(tx, "INSERT INTO users (id, name) VALUES (?, ?)", id, name);
  }

  private static void welcome(OnceOnly once) throws SQLException {
    // ---- docs/queue.md, the outbox in the store's transaction ----
    once.useTransaction(
        tx -> {
          insertUser(tx, "124", "New User");
          once.queue()
              .send(tx, Message.of("user-tasks", "welcome-124", Map.of("type", "welcome")))
              .orThrow(); // a CONFLICT rolls the user back too
        });
    // ---- end ----
  }

  @Test
  void theOutboxCommitsTheUserWithItsMessageAndAConflictRollsTheUserBack() throws SQLException {
    Db.exec(file(), "CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT NOT NULL)");
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      once.queue().send("user-tasks", "welcome-124", Map.of("type", "reminder"));
      assertThatThrownBy(() -> welcome(once)).isInstanceOf(SendConflictException.class);
      assertThat(rows("SELECT COUNT(*) FROM users")).isZero();

      assertThat(once.queue().withdraw("user-tasks", "welcome-124")).isTrue();
      welcome(once);
    }
    assertThat(rows("SELECT COUNT(*) FROM users WHERE id = '124'")).isEqualTo(1);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_messages WHERE message_key = 'welcome-124'"))
        .isEqualTo(1);
  }

  @Test
  void aLargeBodyTravelsByReference() throws SQLException {
    byte[] bytes = new byte[300_000];
    java.util.Arrays.fill(bytes, (byte) 7);
    String digest = "sha-of-the-image";
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      once.useTransaction(
          tx -> {
            // ---- docs/queue.md, large payloads, sending ----
            once.queue()
                .sendLarge(
                    tx,
                    Message.of("images", "image-uuid-1", Map.of("user", 123, "sha256", digest)),
                    bytes);
          });
      Delivery delivery = once.queue().receive("images", 1, Duration.ofSeconds(30)).get(0);
      // in the handler:
      byte[] body = once.queue().largePayload(delivery).orElseThrow();
      // ---- end ----
      assertThat(body).isEqualTo(bytes);
      assertThat(delivery.payload().get("sha256").asText()).isEqualTo(digest);
      once.queue().ack(delivery.lease());
    }
    assertThat(rows("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  @Test
  void aWorkerBuiltAsTheDocsShowHandlesEveryMessageAndCloses() throws Exception {
    Db.exec(file(), "CREATE TABLE reports (message_key TEXT NOT NULL)");
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      Handler handler =
          job ->
              job.completeWith(
                  tx -> {
                    insert(tx, "INSERT INTO reports VALUES (?)", job.delivery().key());
                    return null;
                  });
      for (int i = 0; i < 12; i++) {
        once.queue().send("reports", "report-" + i, Map.of("n", i));
      }
      // ---- docs/queue.md, the worker ----
      Worker worker =
          Worker.builder(once.queue(), "reports", handler)
              .threads(4) // default 1
              .lease(Duration.ofSeconds(30)) // default 30 s
              .idleBackoff(Duration.ofMillis(10), Duration.ofSeconds(1)) // default 10 ms .. 1 s
              .shutdownTimeout(Duration.ofSeconds(10)) // default 10 s
              .prefetch(8) // default adaptive, see below
              .executionTimeout(Duration.ofMinutes(5)) // default none
              .build()
              .start();
      Eventually.await(
          Duration.ofSeconds(30), "12 reports", () -> rows("SELECT COUNT(*) FROM reports") == 12);

      // ... and at shutdown:
      worker.close();
      // ---- end ----
    }
    assertThat(rows("SELECT COUNT(DISTINCT message_key) FROM reports")).isEqualTo(12);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  @Test
  void atMostOnceAcknowledgesFirstThenWithdrawsTheWatchdog() throws SQLException {
    Db.exec(file(), "CREATE TABLE built (report TEXT NOT NULL)");
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      JobQueue queue = once.queue();
      queue.send("reports", "report-9", Map.of("report", "9"));
      Delivery d = queue.receive("reports", 1, Duration.ofSeconds(30)).get(0);
      String id = d.payload().get("report").asText();
      Instant expectedEnd = Instant.now().plus(Duration.ofHours(1));
      Reports reports = new Reports(once);
      reports.at(d, queue, id, expectedEnd);
    }
    assertThat(rows("SELECT COUNT(*) FROM built WHERE report = '9'")).isEqualTo(1);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_messages")).isZero(); // acked, withdrawn
  }

  /** The docs' at-most-once block, with the application's {@code buildReport}. */
  private record Reports(OnceOnly once) {
    void buildReport(String id) throws SQLException {
      once.useTransaction(tx -> insert(tx, "INSERT INTO built VALUES (?)", id));
    }

    void at(Delivery d, JobQueue queue, String id, Instant expectedEnd) throws SQLException {
      // ---- docs/queue.md, long work, at most once ----
      QueueResult r =
          queue.ackAndSend(
              d.lease(),
              List.of(
                  Message.of("reports", "watchdog-" + id, Map.of("report", id))
                      .deliverAt(expectedEnd)));
      if (r instanceof QueueResult.Completed) {
        buildReport(id); // only the holder whose ackAndSend committed gets here
        queue.withdraw("reports", "watchdog-" + id); // done: the watchdog never fires
      }
      // ---- end ----
    }
  }

  @Test
  void checkpointsRunEveryStepOnceUnderOneKey() throws Exception {
    Db.exec(file(), "CREATE TABLE steps (n INTEGER NOT NULL)");
    Db.exec(file(), "CREATE TABLE checkpoints (n INTEGER NOT NULL)");
    int last = 5;
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      JobQueue queue = once.queue();
      queue.send("jobs", "job-1", Map.of("step", 1));
      // ---- docs/queue.md, checkpoints ----
      Handler step =
          job -> {
            int n = job.payload().get("step").asInt();
            job.completeWith(
                tx -> {
                  doStep(tx, n); // the step's effect, in your tables
                  saveCheckpoint(tx, n);
                  if (n < last) {
                    queue
                        .send(tx, Message.of("jobs", job.delivery().key(), Map.of("step", n + 1)))
                        .orThrow();
                  }
                  return null;
                });
          };
      // ---- end ----
      assertThat(Drain.of(queue, "jobs", step).run()).hasSize(last);
    }
    assertThat(Db.strings(file(), "SELECT n FROM steps ORDER BY n"))
        .containsExactly("1", "2", "3", "4", "5");
    assertThat(rows("SELECT MAX(n) FROM checkpoints")).isEqualTo(last);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  private static void doStep(Connection tx, int n) throws SQLException {
    insert(tx, "INSERT INTO steps VALUES (?)", n);
  }

  private static void saveCheckpoint(Connection tx, int n) throws SQLException {
    insert(tx, "INSERT INTO checkpoints VALUES (?)", n);
  }

  /** The application's report runner. */
  interface ReportRunner {
    void run(dev.onceonly.queue.Job job);
  }

  @Test
  void aScheduleIsRegisteredOnceAndUpdatedDeliberately() {
    ReportRunner reports = job -> {};
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      // ---- docs/queue.md, schedules ----
      Schedules schedules = once.schedules();
      // Every instance registers the same schedule at startup: the first stores it, the others get
      // UNCHANGED. Another definition under the same name is a CONFLICT and changes nothing.
      schedules.register(
          "nightly-report",
          "reports",
          ScheduleSpec.cron("0 6 * * *", ZoneId.of("Europe/Madrid")).catchUp(CatchUp.once()),
          Map.of("kind", "summary"));
      // A deliberate change is an update: the next run follows the new spec.
      schedules.update(
          "nightly-report",
          "reports",
          ScheduleSpec.cron("30 6 * * *", ZoneId.of("Europe/Madrid")),
          Map.of("kind", "summary"));
      // The Worker of "reports" fires the schedule's slots as it polls: nothing else to start.
      Worker worker =
          Worker.builder(once.queue(), "reports", job -> reports.run(job)).build().start();
      // ---- end ----
      worker.close();
    }
    assertThat(Db.strings(file(), "SELECT name FROM onceonly_schedules"))
        .containsExactly("nightly-report");
    assertThat(Db.strings(file(), "SELECT spec FROM onceonly_schedules").get(0))
        .contains("30 6 * * *");
  }

  @Test
  void aKeyDeclaredUniqueForAPeriodStaysTakenAfterItsMessageWasHandled() {
    try (OnceOnly once =
        // ---- docs/queue.md, unique keys beyond the queue ----
        OnceOnly.builder()
            .uniqueness(
                "reports", Uniqueness.forPeriod(Duration.ofHours(1))) // an hour after each send
            .uniqueness(
                "tickets",
                Uniqueness.whileQueued().includingDeadLetters()) // while a dead letter is kept
            // ---- end ----
            .sqlite(file())
            .build()) {
      once.queue().send("reports", "daily", Map.of("day", 1));
      Delivery d = once.queue().receive("reports", 1, Duration.ofSeconds(30)).get(0);
      once.queue().ack(d.lease());
      assertThat(once.queue().send("reports", "daily", Map.of("day", 1)).status())
          .isEqualTo(SendResult.Status.REPEATED);
    }
    assertThat(rows("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  record Report(String operation) {}

  private static Report insertReport(Connection c, IntentMessage m) throws SQLException {
    insert(c, "INSERT INTO reports (intent_key) VALUES (?)", m.key().key());
    return new Report(m.operation());
  }

  @Test
  void intentsThroughTheQueueAreReconciledAndEachRunsOnce() throws Exception {
    Db.exec(file(), "CREATE TABLE reports (intent_key TEXT NOT NULL)");
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      for (int i = 0; i < 3; i++) {
        once.intents().register(IntentKey.of("u-1", "r-" + i), "make_report", Map.of("n", i));
      }
      // ---- docs/queue.md, the reconciler ----
      Reconciler reconciler =
          Reconciler.builder(once.intents(), IntentMessage.publisher(once.queue(), "reports"))
              .batchSize(100) // default 100, from 1 to 10,000
              .maxBatches(1000) // default 1,000 batches per pass
              .build();
      Reconciler.Report report = reconciler.reconcile();
      // examined, published, alreadyQueued, conflicts, batches
      // ---- end ----
      assertThat(report.published()).isEqualTo(3);
      assertThat(reconciler.reconcile().alreadyQueued()).isEqualTo(3);

      // ---- docs/queue.md, the handler of intent messages ----
      Handler handler =
          job -> {
            IntentMessage m = IntentMessage.decode(job.payload()); // refused: dead letter at once
            job.completeWith(
                tx ->
                    once.receipts()
                        .execute(
                            tx,
                            m.key(),
                            m.operation(),
                            m.arguments(),
                            Report.class,
                            c -> insertReport(c, m)));
          };
      // ---- end ----
      once.queue().send("reports", "bad-1", Map.of("not", "an intent"));
      Drain.of(once.queue(), "reports", handler).run();
      assertThat(reconciler.reconcile().published()).isZero(); // every intent has its receipt
      assertThat(
              once.receipts().find(IntentKey.of("u-1", "r-0")).map(r -> r.result()).orElseThrow())
          .isNotNull();
      assertThat(
              once.receipts()
                  .execute(
                      IntentKey.of("u-1", "r-0"),
                      "make_report",
                      Map.of("n", 0),
                      Report.class,
                      tx -> new Report("again")))
          .isInstanceOf(Outcome.Repeated.class);
    }
    assertThat(rows("SELECT COUNT(*) FROM reports")).isEqualTo(3);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_dead_letters WHERE message_key = 'bad-1'"))
        .isEqualTo(1);
  }
}
