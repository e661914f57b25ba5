package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.maintenance.Backlog;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.maintenance.QueuePage;
import dev.onceonly.maintenance.StoreStatus;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of {@link Maintenance}: counts that match the rows after a restart, purges bounded
 * by age and batch with progress per batch, migrations from an older schema, and bad arguments
 * refused before anything is written.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class MaintenanceContract extends ContractSupport {
  private static final LongConsumer QUIET = n -> {};

  /** Fills every table; leaves the clock 5 minutes after the messages were sent. */
  private void fillEveryTable() {
    start();
    receipt("a"); // becomes a tombstone
    clock.advance(Duration.ofDays(1));
    receipt("c"); // expires, stays unpurged
    clock.advance(Duration.ofDays(31));
    assertThat(once.receipts().purge(1).tombstoned()).isOne();
    receipt("b"); // live
    once.intents().register(IntentKey.of("workshop", "p-2"), "make_report", Map.of());
    clock.advance(Duration.ofSeconds(1));
    once.intents().register(IntentKey.of("workshop", "p-1"), "make_report", Map.of());
    for (String key : List.of("m-1", "m-2", "m-3")) {
      once.queue().send("mail", key, Map.of("to", key));
    }
    once.queue()
        .send(Message.of("mail", "m-4", Map.of()).deliverAt(clock.instant().plusSeconds(7_200)));
    assertThat(once.queue().receive("mail", 1, Duration.ofHours(1))).hasSize(1);
    once.queue().send("jobs", "j-1", Map.of());
    once.queue()
        .deadLetter(once.queue().receive("jobs", 1, Duration.ofMinutes(1)).get(0).lease(), "no");
    once.rejections().record("mail/x#1", "{", "not JSON");
    once.rejections().record("mail/x#2", "{", "not JSON");
    assertThat(
            once.externalEffects()
                .claim(IntentKey.of("u-1", "pay-1"), "charge", Map.of(), Duration.ofMinutes(1)))
        .isInstanceOf(ClaimOutcome.Claimed.class);
    clock.advance(Duration.ofMinutes(5));
  }

  private void receipt(String key) {
    once.receipts().execute(IntentKey.of("u-1", key), "op", Map.of(), String.class, c -> "ok");
  }

  @Test
  void statusCountsTheRowsAfterReopening() {
    fillEveryTable();
    reopen();
    StoreStatus s = once.maintenance().status();
    assertThat(s.schemaVersion()).isEqualTo(MigrationContract.LATEST);
    assertThat(s.at()).isEqualTo(clock.instant());
    assertThat(s.intents()).isEqualTo(2).isEqualTo(count("SELECT COUNT(*) FROM onceonly_intents"));
    assertThat(s.pendingIntents()).isEqualTo(2);
    assertThat(s.receiptsLive()).isOne();
    assertThat(s.receiptsExpired()).isOne();
    assertThat(s.tombstones())
        .isOne()
        .isEqualTo(count("SELECT COUNT(*) FROM onceonly_receipts WHERE result IS NULL"));
    assertThat(s.messages())
        .containsOnlyKeys("mail")
        .containsEntry("mail", new StoreStatus.QueueCounts(2, 1, 1));
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isEqualTo(4);
    assertThat(s.deadLetters()).isEqualTo(Map.of("jobs", 1L));
    assertThat(s.deadLetterTotal()).isEqualTo(count("SELECT COUNT(*) FROM onceonly_dead_letters"));
    assertThat(s.rejections())
        .isEqualTo(2)
        .isEqualTo(count("SELECT COUNT(*) FROM onceonly_rejections"));
    assertThat(s.claims()).isEqualTo(Map.of("IN_PROGRESS", 1L));
    assertThat(s.oldestPending()).isEqualTo(once.maintenance().oldestPending());
    StoreStatus.PendingIntent oldest = s.oldestPending().orElseThrow();
    assertThat(oldest.key()).isEqualTo(IntentKey.of("workshop", "p-2"));
    assertThat(oldest.age()).isEqualTo(Duration.ofMinutes(5).plusSeconds(1));
    assertThat(s.oldestDueAge()).contains(Duration.ofMinutes(5));
    assertThat(once.maintenance().oldestDueAge()).contains(Duration.ofMinutes(5));
    // the backlog counts the same figures without reading the receipts' totals
    assertThat(once.maintenance().backlog()).isEqualTo(Backlog.of(s));
    assertThat(once.maintenance().backlog().deadLetterTotal()).isEqualTo(s.deadLetterTotal());
  }

  /**
   * Counts of generated messages and dead letters, compared with a reference computed here from
   * what was generated: deliver times on both sides of now (and on it), leased or not, over several
   * queues; dead letters over ninety minutes, some on a minute's first millisecond.
   */
  @Test
  void statusAndDeadLetteredPerMinuteMatchAReferenceOverGeneratedRows() {
    start();
    clock.advance(Duration.ofSeconds(17).plusMillis(250));
    long now = clock.millis();
    for (long seed = 1; seed <= 4; seed++) {
      exec("DELETE FROM onceonly_messages", "DELETE FROM onceonly_dead_letters");
      java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
      Map<String, long[]> expected = new java.util.TreeMap<>();
      long oldestDue = Long.MAX_VALUE;
      List<String> inserts = new ArrayList<>();
      int messages = random.nextInt(0, 120);
      for (int i = 0; i < messages; i++) {
        String queue = "q" + random.nextInt(4);
        long at = now + (random.nextInt(5) == 0 ? 0 : random.nextLong(-3_600_000, 3_600_000));
        int leased = random.nextInt(2);
        long[] e = expected.computeIfAbsent(queue, q -> new long[3]);
        e[at <= now ? 0 : leased == 1 ? 1 : 2]++;
        oldestDue = at <= now ? Math.min(oldestDue, at) : oldestDue;
        inserts.add(
            "INSERT INTO onceonly_messages (queue, message_key, fingerprint, payload, deliver_at,"
                + " leased, created_at) VALUES ('"
                + queue
                + "', 'm-"
                + i
                + "', 'f', '{}', "
                + timeLiteral(at)
                + ", "
                + leased
                + ", "
                + timeLiteral(now)
                + ")");
      }
      long firstMinute = now - now % 60_000 - 59 * 60_000L;
      long[] perMinute = new long[60];
      int dead = random.nextInt(0, 80);
      for (int i = 0; i < dead; i++) {
        long at =
            random.nextBoolean()
                ? now - random.nextLong(0, 90 * 60_000L)
                : now - now % 60_000 - random.nextInt(0, 90) * 60_000L;
        int minute = (int) Math.floorDiv(at - firstMinute, 60_000L);
        if (minute >= 0 && minute < 60) {
          perMinute[minute]++;
        }
        inserts.add(
            "INSERT INTO onceonly_dead_letters (queue, message_key, fingerprint, payload, attempts,"
                + " created_at, dead_at) VALUES ('d', 'd-"
                + i
                + "', 'f', '{}', 1, "
                + timeLiteral(at)
                + ", "
                + timeLiteral(at)
                + ")");
      }
      if (!inserts.isEmpty()) {
        exec(inserts.toArray(String[]::new));
      }
      StoreStatus s = once.maintenance().status();
      Map<String, StoreStatus.QueueCounts> reference = new java.util.TreeMap<>();
      expected.forEach((q, e) -> reference.put(q, new StoreStatus.QueueCounts(e[0], e[1], e[2])));
      assertThat(s.messages()).as("seed %d", seed).isEqualTo(reference);
      Backlog b = once.maintenance().backlog();
      assertThat(b.messages()).as("seed %d", seed).isEqualTo(reference);
      assertThat(b.oldestDueAge()).as("seed %d", seed).isEqualTo(s.oldestDueAge());
      assertThat(b.deadLetters()).as("seed %d", seed).isEqualTo(s.deadLetters());
      assertThat(s.oldestDueAge())
          .as("seed %d", seed)
          .isEqualTo(
              oldestDue == Long.MAX_VALUE
                  ? java.util.Optional.empty()
                  : java.util.Optional.of(Duration.ofMillis(now - oldestDue)));
      Maintenance.PerMinute counted = once.maintenance().deadLetteredPerMinute(60);
      assertThat(counted.start().toEpochMilli()).isEqualTo(firstMinute);
      assertThat(counted.counts())
          .as("seed %d", seed)
          .isEqualTo(java.util.Arrays.stream(perMinute).boxed().toList());
    }
  }

  /**
   * The queues page over generated rows, against a reference computed here: names that share a
   * prefix, differ in case only, hold pattern characters or sort above ASCII, with messages in
   * every state and dead letters (some queues have only dead letters); every page of three sizes,
   * and the names holding a part. The order is the deepest first, then the most dead letters, then
   * the name bytewise.
   */
  @Test
  void queuePagesMatchAReferenceOverGeneratedNames() {
    start();
    long now = clock.millis();
    List<String> pool =
        List.of(
            "a",
            "A",
            "a b",
            "a%",
            "a_",
            "ab",
            "b",
            "z",
            "\u00e4",
            "\u65e5\u672c",
            "q-1",
            "q-10",
            "q-2",
            "%",
            "_",
            "it's");
    for (long seed = 1; seed <= 4; seed++) {
      exec("DELETE FROM onceonly_messages", "DELETE FROM onceonly_dead_letters");
      java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
      Map<String, long[]> counts = new java.util.HashMap<>();
      List<String> inserts = new ArrayList<>();
      int messages = random.nextInt(0, 150);
      for (int i = 0; i < messages; i++) {
        String queue = pool.get(random.nextInt(pool.size()));
        long at = now + random.nextLong(-3_600_000, 3_600_000);
        int leased = random.nextInt(2);
        counts.computeIfAbsent(queue, q -> new long[4])[at <= now ? 0 : leased == 1 ? 1 : 2]++;
        inserts.add(
            "INSERT INTO onceonly_messages (queue, message_key, fingerprint, payload, deliver_at,"
                + " leased, created_at) VALUES ("
                + literal(queue)
                + ", 'm-"
                + i
                + "', 'f', '{}', "
                + timeLiteral(at)
                + ", "
                + leased
                + ", "
                + timeLiteral(now)
                + ")");
      }
      int dead = random.nextInt(0, 40);
      for (int i = 0; i < dead; i++) {
        String queue = pool.get(random.nextInt(pool.size()));
        counts.computeIfAbsent(queue, q -> new long[4])[3]++;
        inserts.add(
            "INSERT INTO onceonly_dead_letters (queue, message_key, fingerprint, payload, attempts,"
                + " created_at, dead_at) VALUES ("
                + literal(queue)
                + ", 'd-"
                + i
                + "', 'f', '{}', 1, "
                + timeLiteral(now)
                + ", "
                + timeLiteral(now)
                + ")");
      }
      if (!inserts.isEmpty()) {
        exec(inserts.toArray(String[]::new));
      }
      List<QueuePage.Queue> reference = new ArrayList<>();
      counts.forEach(
          (q, c) ->
              reference.add(
                  new QueuePage.Queue(q, new StoreStatus.QueueCounts(c[0], c[1], c[2]), c[3])));
      reference.sort(
          java.util.Comparator.comparingLong((QueuePage.Queue q) -> -q.depth())
              .thenComparingLong(q -> -q.deadLetters())
              .thenComparing(
                  q -> q.name().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                  java.util.Arrays::compareUnsigned));
      // the overview's page, taken from a status, is the database's first page
      StoreStatus status = once.maintenance().status();
      for (int limit : new int[] {1, 3, 100}) {
        assertThat(QueuePage.deepestOf(status, limit))
            .as("seed %d, limit %d", seed, limit)
            .isEqualTo(once.maintenance().queues("", 0, limit));
      }
      for (int limit : new int[] {1, 3, 100}) {
        for (int offset = 0; offset <= reference.size(); offset += limit) {
          QueuePage page = once.maintenance().queues("", offset, limit);
          assertThat(page.total()).as("seed %d", seed).isEqualTo(reference.size());
          assertThat(page.queues())
              .as("seed %d, offset %d, limit %d", seed, offset, limit)
              .isEqualTo(reference.subList(offset, Math.min(reference.size(), offset + limit)));
        }
      }
      for (String part : List.of("a", "A", "%", "_", "q-1", "\u65e5", "'", "zz")) {
        List<QueuePage.Queue> holding =
            reference.stream().filter(q -> q.name().contains(part)).toList();
        QueuePage page = once.maintenance().queues(part, 0, 100);
        assertThat(page.total()).as("seed %d, part %s", seed, part).isEqualTo(holding.size());
        assertThat(page.queues()).as("seed %d, part %s", seed, part).isEqualTo(holding);
      }
    }
  }

  private static String literal(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  @Test
  void anEmptyStoreHasZeroCountsAndNoOldest() {
    start();
    StoreStatus s = once.maintenance().status();
    assertThat(s.intents() + s.receiptsLive() + s.tombstones() + s.rejections()).isZero();
    assertThat(s.messages()).isEmpty();
    assertThat(s.claims()).isEmpty();
    assertThat(s.oldestPending()).isEmpty();
    assertThat(s.oldestDueAge()).isEmpty();
    assertThat(once.maintenance().backlog()).isEqualTo(Backlog.of(s));
    assertThat(once.maintenance().recentDeadLetters(null, 10)).isEmpty();
  }

  @Test
  void purgeRejectionsDeletesPastTheBoundInBatchesWithProgress() {
    start();
    for (int i = 0; i < 35; i++) {
      once.rejections().record(String.format("old-%02d", i), "{", "bad");
    }
    clock.advance(Duration.ofDays(10));
    for (int i = 0; i < 3; i++) {
      once.rejections().record("new-" + i, "{", "bad");
    }
    List<Long> progress = new ArrayList<>();
    assertThat(once.maintenance().purgeRejections(Duration.ofDays(5), 10, progress::add))
        .isEqualTo(35);
    assertThat(progress).containsExactly(10L, 20L, 30L, 35L);
    reopen();
    assertThat(strings("SELECT delivery_id FROM onceonly_rejections ORDER BY delivery_id"))
        .containsExactly("new-0", "new-1", "new-2");
    assertThat(once.maintenance().purgeRejections(Duration.ofDays(5), 10, progress::add)).isZero();
    assertThat(progress).as("no batch deleted anything").hasSize(4);
  }

  @Test
  void purgeDeadLettersDeletesPastTheBoundInBatchesWithProgress() {
    start();
    deadLetters("old-", 35);
    clock.advance(Duration.ofDays(10));
    deadLetters("new-", 2);
    List<Long> progress = new ArrayList<>();
    assertThat(once.maintenance().purgeDeadLetters(Duration.ofDays(5), 10, progress::add))
        .isEqualTo(35);
    assertThat(progress).containsExactly(10L, 20L, 30L, 35L);
    reopen();
    assertThat(strings("SELECT message_key FROM onceonly_dead_letters ORDER BY message_key"))
        .containsExactly("new-0", "new-1");
    assertThat(once.maintenance().recentDeadLetters("q", 10))
        .extracting(Maintenance.DeadLetterSummary::key)
        .containsExactly("new-0", "new-1");
    assertThat(once.maintenance().recentDeadLetters("other", 10)).isEmpty();
  }

  @Test
  void purgeWorkflowsDeletesRunsFinishedPastTheBoundAndKeepsRunningOnes() {
    start();
    dev.onceonly.workflow.Workflow one =
        dev.onceonly.workflow.Workflow.named("one").step("only", "wq").build();
    for (int i = 0; i < 12; i++) {
      once.workflows().start(one, "old-" + i, Map.of());
      once.workflows().cancel("old-" + i, false);
    }
    once.workflows().start(one, "running-old", Map.of());
    clock.advance(Duration.ofDays(10));
    once.workflows().start(one, "new-0", Map.of());
    once.workflows().cancel("new-0", false);
    List<Long> progress = new ArrayList<>();
    assertThat(once.maintenance().purgeWorkflows(Duration.ofDays(5), 5, progress::add))
        .isEqualTo(12);
    assertThat(progress).containsExactly(5L, 10L, 12L);
    reopen();
    assertThat(strings("SELECT workflow_id FROM onceonly_workflows ORDER BY workflow_id"))
        .containsExactly("new-0", "running-old");
    assertThat(strings("SELECT DISTINCT workflow_id FROM onceonly_workflow_steps ORDER BY 1"))
        .containsExactly("new-0", "running-old");
    // A deleted run's id may start again.
    assertThat(once.workflows().start(one, "old-3", Map.of()))
        .isInstanceOf(dev.onceonly.Outcome.Created.class);
    assertThatThrownBy(() -> once.maintenance().purgeWorkflows(Duration.ofSeconds(-1), 5, QUIET))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private void deadLetters(String prefix, int n) {
    for (int i = 0; i < n; i++) {
      once.queue().send("q", String.format("%s%d", prefix, i), Map.of("i", i));
    }
    for (Delivery d : once.queue().receive("q", n, Duration.ofMinutes(1))) {
      once.queue().deadLetter(d.lease(), "failed");
    }
  }

  @Test
  void purgeReceiptsTombstonesInBatchesWithProgress() {
    start();
    for (int i = 0; i < 35; i++) {
      receipt("r-" + i);
    }
    clock.advance(Duration.ofDays(31));
    receipt("live");
    List<Long> progress = new ArrayList<>();
    Maintenance.ReceiptPurge purged = once.maintenance().purgeReceipts(10, progress::add);
    assertThat(purged).isEqualTo(new Maintenance.ReceiptPurge(35, 0));
    assertThat(progress).containsExactly(10L, 20L, 30L, 35L);
    reopen();
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts WHERE result IS NULL")).isEqualTo(35);
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts WHERE result IS NOT NULL")).isOne();
  }

  @Test
  void badArgumentsAreRefusedAndWriteNothing() {
    start();
    once.rejections().record("old", "{", "bad");
    deadLetters("d-", 1);
    receipt("r");
    clock.advance(Duration.ofDays(400));
    Map<String, List<String>> before = snapshot();
    Maintenance m = once.maintenance();
    assertThatThrownBy(() -> m.purgeRejections(Duration.ofDays(-1), 10, QUIET))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("olderThan must be >= 0");
    assertThatThrownBy(() -> m.purgeDeadLetters(Duration.ofSeconds(-1), 10, QUIET))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("olderThan must be >= 0");
    for (int bad : new int[] {0, -1, Maintenance.MAX_BATCH + 1}) {
      assertThatThrownBy(() -> m.purgeRejections(Duration.ZERO, bad, QUIET))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("batchSize must be between 1 and 10000");
      assertThatThrownBy(() -> m.purgeDeadLetters(Duration.ZERO, bad, QUIET))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("batchSize must be between 1 and 10000");
      assertThatThrownBy(() -> m.purgeReceipts(bad, QUIET))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("batchSize must be between 1 and 10000");
      assertThatThrownBy(() -> m.recentDeadLetters(null, bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("limit must be between 1 and 10000");
    }
    for (int bad : new int[] {0, -1, Maintenance.MAX_MINUTES + 1}) {
      assertThatThrownBy(() -> m.deadLetteredPerMinute(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("minutes must be between 1 and 1440");
    }
    assertThatThrownBy(() -> m.purgeRejections(null, 10, QUIET))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("olderThan");
    assertThatThrownBy(() -> m.purgeReceipts(10, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("progress");
    reopen();
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void migrateBringsAnOlderSchemaToThisVersion() {
    start();
    receipt("kept");
    once.close();
    int latest = MigrationContract.LATEST;
    int previous = MigrationContract.PREVIOUS;
    exec(MigrationContract.undoLatest(dialect()).toArray(String[]::new));
    OnceOnly old = track(open(clock, b -> b.migrations(OnceOnly.Migrations.NONE)));
    assertThat(old.maintenance().schemaVersion())
        .isEqualTo(new Maintenance.SchemaVersion(previous, latest));
    List<Integer> applied = new ArrayList<>();
    assertThat(old.maintenance().migrate(applied::add))
        .isEqualTo(new Maintenance.Migration(previous, latest));
    assertThat(applied).containsExactly(latest);
    old.close();
    OnceOnly reopened = track(open(clock, b -> b.migrations(OnceOnly.Migrations.VALIDATE)));
    assertThat(reopened.maintenance().schemaVersion().isCurrent()).isTrue();
    assertThat(count("SELECT COUNT(*) FROM onceonly_schema_version"))
        .isEqualTo(MigrationContract.MIGRATIONS.size());
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts")).isOne();
    Maintenance.Migration again = reopened.maintenance().migrate(applied::add);
    assertThat(again.changed()).isFalse();
    assertThat(applied).hasSize(1);
  }

  @Test
  void anEmptyDatabaseReportsNoSchemaAndMigrateCreatesIt() {
    OnceOnly empty = track(open(clock, b -> b.migrations(OnceOnly.Migrations.NONE)));
    int latest = MigrationContract.LATEST;
    assertThat(empty.maintenance().schemaVersion())
        .isEqualTo(new Maintenance.SchemaVersion(0, latest));
    assertThat(tables()).as("reading the version creates nothing").isEmpty();
    List<Integer> applied = new ArrayList<>();
    assertThat(empty.maintenance().migrate(applied::add))
        .isEqualTo(new Maintenance.Migration(0, latest));
    assertThat(applied)
        .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18);
    assertThat(tables()).containsAll(MigrationContract.DEFAULT_TABLES);
  }
}
