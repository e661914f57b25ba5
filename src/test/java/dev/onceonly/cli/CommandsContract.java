package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.ScheduleSpec;
import dev.onceonly.sql.Dialect;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.ContractDatabases;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.MariaDbContractDatabase;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.PostgresContractDatabase;
import dev.onceonly.testing.SqlTimes;
import dev.onceonly.testing.SqliteContractDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every operator command on a prepared store (written 40 days ago by a store with a fixed clock):
 * two pending intents, a receipt past its retention, a queued message and a dead letter, a
 * rejection and an external effect whose lease ran out. Effects are checked on the rows through a
 * fresh connection; error paths give one line on stderr and a typed status. Runs on SQLite files
 * ({@code --db}, and {@code jdbc:sqlite:} URLs) and on schemas of the embedded PostgreSQL server
 * ({@code --jdbc-url jdbc:postgresql:...}, the URL's {@code currentSchema}), written by a store
 * whose sessions run in {@link EmbeddedPg#SESSION_TIME_ZONE}, far from UTC, and on databases of the
 * build's MariaDB server ({@code --jdbc-url jdbc:mariadb:...}); plus what only a server has: a
 * wrong password, and a tool in yet another time zone. Targets that are not a prepared store are in
 * {@link TargetTest}.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class CommandsContract {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final Instant THEN = Instant.now().minus(Duration.ofDays(40));

  private final List<ContractDatabase> created = new ArrayList<>();

  /** The database this run is on, one of {@link ContractDatabases}. */
  @Parameter ContractDatabases.Factory kind;

  @TempDir Path dir;
  private int databases;

  /** The prepared store of this test. */
  ContractDatabase store;

  /** Returns a new, empty database: a new empty file in a folder of its own, or a new schema. */
  ContractDatabase newDatabase() {
    try {
      ContractDatabase db = kind.create(Files.createDirectory(dir.resolve("db" + ++databases)));
      if (db instanceof SqliteContractDatabase sqlite) {
        Files.createFile(
            sqlite.file()); // empty, as a new database; a missing file is another error
      }
      return db;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Returns the options that point a command at {@code db}. */
  static String[] target(ContractDatabase db) {
    return db instanceof SqliteContractDatabase sqlite
        ? new String[] {"--db", sqlite.file().toString()}
        : new String[] {"--jdbc-url", url(db)};
  }

  /** Returns how the tool names {@code db} in its messages: its file, or its URL. */
  static String describe(ContractDatabase db) {
    return db instanceof SqliteContractDatabase sqlite ? sqlite.file().toString() : url(db);
  }

  private static String url(ContractDatabase db) {
    return db instanceof MariaDbContractDatabase mariadb
        ? mariadb.url()
        : ((PostgresContractDatabase) db).url();
  }

  @BeforeEach
  void prepareStore() {
    store = database();
    prepare(store, "onceonly_");
  }

  @AfterEach
  void closeDatabases() throws Exception {
    for (ContractDatabase db : created) {
      if (db instanceof AutoCloseable c) {
        c.close();
      }
    }
  }

  /** Returns a new database, closed after the test. */
  ContractDatabase database() {
    ContractDatabase db = newDatabase();
    created.add(db);
    return db;
  }

  static void prepare(ContractDatabase db, String prefix) {
    MutableClock clock = new MutableClock(THEN);
    try (OnceOnly once = db.builder().tablePrefix(prefix).clock(clock).build()) {
      once.intents().register(IntentKey.of("workshop", "batch-2"), "make_report", Map.of("n", 2));
      clock.advance(Duration.ofSeconds(1));
      once.intents().register(IntentKey.of("workshop", "batch-1"), "make_report", Map.of("n", 1));
      once.receipts()
          .execute(
              IntentKey.of("u-1", "op-17"),
              "create_ticket",
              Map.of("s", "x"),
              String.class,
              c -> "t-1");
      once.queue().send(Message.of("mail", "m-1", Map.of("to", "a")));
      List<Delivery> d = once.queue().receive("mail", 1, Duration.ofMinutes(1));
      once.queue().deadLetter(d.get(0).lease(), "smtp refused");
      once.queue().send(Message.of("mail", "m-2", Map.of("to", "b")));
      once.rejections().record("mail/m-9#1", "{not json", "payload: not JSON");
      ClaimOutcome claim =
          once.externalEffects()
              .claim(
                  IntentKey.of("u-1", "pay-1"),
                  "charge",
                  Map.of("cents", 500),
                  Duration.ofMinutes(1));
      assertThat(claim).isInstanceOf(ClaimOutcome.Claimed.class);
    }
  }

  /** Runs the tool on the prepared store. */
  CliRun run(String... args) {
    return on(store, args);
  }

  /** Runs the tool on {@code db}. */
  CliRun on(ContractDatabase db, String... args) {
    return CliRun.of(Stream.concat(Stream.of(args), Stream.of(target(db))).toArray(String[]::new));
  }

  static JsonNode json(CliRun run) throws Exception {
    assertThat(run.status()).as("%s", run).isZero();
    assertThat(run.err()).isEmpty();
    return JSON.readTree(run.out());
  }

  /** Reads a timestamp column of one row as an instant, converted to epoch millis in SQL. */
  Instant instant(String column, String table, String where) {
    return Instant.ofEpochMilli(
        store.count("SELECT " + store.millis(column) + " FROM " + table + " WHERE " + where));
  }

  @Test
  void statusCountsRowsPerTableAndState() throws Exception {
    Instant before = Instant.now();
    JsonNode status = json(run("status", "--json"));
    Instant after = Instant.now();
    List<String> counts = new ArrayList<>();
    status
        .get("counts")
        .forEach(
            r ->
                counts.add(
                    r.get("table").asText()
                        + "/"
                        + r.get("state").asText()
                        + "="
                        + r.get("count").asLong()));
    assertThat(counts)
        .contains(
            "intents/registered=2",
            "intents/without receipt=2",
            "receipts/result kept=0",
            "receipts/result expired=1",
            "receipts/tombstone=0",
            "messages/mail: due=1",
            "dead_letters/mail=1",
            "claims/IN_PROGRESS=1",
            "rejections/kept=1");
    assertThat(status.get("database").asText()).isEqualTo(describe(store));
    assertThat(status.get("pendingIntents").asLong()).isEqualTo(2);
    assertThat(status.get("deadLetters").asLong()).isOne();
    // The oldest intent was registered at THEN; its age is read between before and after.
    assertThat(status.get("oldestPendingAgeSeconds").asLong())
        .isBetween(
            Duration.between(THEN, before).toSeconds() - 1,
            Duration.between(THEN, after).toSeconds() + 1);

    CliRun text = run("status");
    assertThat(text.status()).isZero();
    assertThat(text.out())
        .containsPattern("(?m)^table +state +count$")
        .containsPattern("(?m)^dead_letters +mail +1$")
        .contains("oldest pending intent: 40d old")
        .contains("dead letters: 1");
  }

  @Test
  void workflowsListsRunsByStateAndShowsOneRunsSteps() throws Exception {
    dev.onceonly.workflow.Workflow two =
        dev.onceonly.workflow.Workflow.named("two")
            .step("a", "wq")
            .step("b", "wq")
            .after("a")
            .build();
    try (OnceOnly once = store.builder().tablePrefix("onceonly_").build()) {
      once.workflows().start(two, "r-1", Map.of());
      once.workflows().start(two, "r-2", Map.of());
      once.workflows().cancel("r-2", false);
    }
    JsonNode running = json(run("workflows", "list", "--json")).get("workflows");
    assertThat(running).hasSize(1);
    assertThat(running.get(0).get("id").asText()).isEqualTo("r-1");
    assertThat(running.get(0).get("steps done").asText()).isEqualTo("0/2");
    JsonNode cancelled =
        json(run("workflows", "list", "--state", "CANCELLED", "--json")).get("workflows");
    assertThat(cancelled).hasSize(1);
    assertThat(cancelled.get(0).get("error").asText()).isEqualTo("cancelled");

    CliRun show = run("workflows", "show", "r-1");
    assertThat(show.status()).as("%s", show).isZero();
    assertThat(show.out())
        .startsWith("r-1 (two): RUNNING\n")
        .containsPattern("(?m)^a +wq +QUEUED +0")
        .containsPattern("(?m)^b +wq +WAITING +0");
    CliRun none = run("workflows", "show", "r-9");
    assertThat(none.status()).isEqualTo(CliException.NOT_FOUND);
    assertThat(none.err()).contains("no workflow run r-9");
    CliRun bad = run("workflows", "list", "--state", "DONE");
    assertThat(bad.status()).isEqualTo(CliException.USAGE);
  }

  @Test
  void pendingListsIntentsWithoutReceiptInKeyOrder() throws Exception {
    JsonNode pending = json(run("pending", "--json")).get("pending");
    assertThat(pending).hasSize(2);
    assertThat(pending.get(0).get("key").asText()).isEqualTo("batch-1");
    assertThat(pending.get(1).get("key").asText()).isEqualTo("batch-2");
    assertThat(Instant.parse(pending.get(0).get("registered").asText()))
        .as("the instant in the row, whatever the session's time zone")
        .isEqualTo(instant("created_at", "onceonly_intents", "intent_key = 'batch-1'"))
        .isEqualTo(THEN.plusSeconds(1).truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
    assertThat(run("pending").out()).startsWith("2 pending intent(s)\nscope ");
  }

  @Test
  void receiptsShowFindsOneAndSaysWhenThereIsNone() throws Exception {
    JsonNode r = json(run("receipts", "show", "u-1", "op-17", "--json"));
    assertThat(r.get("operation").asText()).isEqualTo("create_ticket");
    assertThat(r.get("result").asText()).isEqualTo("t-1");
    assertThat(r.get("fingerprint").asText()).startsWith("jcs-sha256:");
    assertThat(Instant.parse(r.get("createdAt").asText()))
        .isEqualTo(instant("created_at", "onceonly_receipts", "intent_key = 'op-17'"));

    CliRun missing = run("receipts", "show", "u-1", "nope");
    assertThat(missing.status()).isEqualTo(3);
    assertThat(missing.err()).isEqualTo("onceonly: no receipt for u-1/nope\n");
    CliRun bad = run("receipts", "show", "u 1", "k");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).startsWith("onceonly: ").doesNotContain("\tat ");
  }

  @Test
  void deadLettersAreListedAndRequeued() throws Exception {
    JsonNode list = json(run("dead-letters", "list", "--json")).get("deadLetters");
    assertThat(list).hasSize(1);
    assertThat(list.get(0).get("key").asText()).isEqualTo("m-1");
    assertThat(list.get(0).get("lastError").asText()).contains("smtp refused");
    assertThat(Instant.parse(list.get(0).get("deadAt").asText()))
        .isEqualTo(instant("dead_at", "onceonly_dead_letters", "message_key = 'm-1'"))
        .isBetween(THEN, THEN.plusSeconds(2));

    CliRun requeue = run("dead-letters", "requeue", "mail", "m-1");
    assertThat(requeue.status()).as("%s", requeue).isZero();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_messages WHERE message_key = 'm-1'"))
        .isOne();

    CliRun again = run("dead-letters", "requeue", "mail", "m-1");
    assertThat(again.status()).isEqualTo(3);
    assertThat(again.err())
        .startsWith("onceonly: no dead letter m-1 in queue mail")
        .hasLineCount(1);
  }

  @Test
  void schedulesAreListedWithTheirNextRunPausedResumedAndDeleted() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:10:00Z"));
    try (OnceOnly once = store.builder().clock(clock).build()) {
      once.schedules()
          .register(
              "nightly",
              "reports",
              ScheduleSpec.cron("0 6 * * *", ZoneId.of("Europe/Madrid")),
              Map.of("kind", "summary"));
      once.schedules().register("sweep", "mail", ScheduleSpec.fixedRate(Duration.ofHours(1)), 1);
    }
    CliRun list = run("schedules", "list");
    assertThat(list.status()).as("%s", list).isZero();
    assertThat(list.out())
        .contains("2 schedule(s)")
        .containsPattern(
            "nightly +reports +cron 0 6 \\* \\* \\* Europe/Madrid +once +2026-01-01T05:00:00Z +never +false")
        .containsPattern("sweep +mail +every PT1H +once +2026-01-01T00:10:00Z +never +false");

    assertThat(run("schedules", "pause", "nightly").status()).isZero();
    JsonNode paused = json(run("schedules", "list", "--json")).get("schedules");
    assertThat(paused.get(0).get("name").asText()).isEqualTo("nightly");
    assertThat(paused.get(0).get("nextRun").asText()).isEqualTo("paused");
    assertThat(store.count("SELECT paused FROM onceonly_schedules WHERE name = 'nightly'")).isOne();
    CliRun again = run("schedules", "pause", "nightly");
    assertThat(again.status()).isEqualTo(3);
    assertThat(again.err()).startsWith("onceonly: no schedule nightly that is running");

    assertThat(run("schedules", "resume", "nightly").status()).isZero();
    assertThat(store.count("SELECT paused FROM onceonly_schedules WHERE name = 'nightly'"))
        .isZero();
    assertThat(run("schedules", "delete", "sweep").status()).isZero();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_schedules")).isOne();
    assertThat(run("schedules", "delete", "sweep").status()).isEqualTo(3);
  }

  @Test
  void queuesArePausedListedAndResumedForEveryInstance() throws Exception {
    try (OnceOnly once = store.builder().build()) {
      once.queue().send("pausable", "m-1", 1).orThrow();
    }
    CliRun pause =
        run("queues", "pause", "pausable", "--by", "ops@example", "--reason", "provider down");
    assertThat(pause.status()).as("%s", pause).isZero();
    assertThat(pause.out()).containsPattern("pausable +true +ops@example +\\S+ +provider down");
    assertThat(
            store.count(
                "SELECT COUNT(*) FROM onceonly_queue_pauses WHERE queue = 'pausable'"
                    + " AND paused_by = 'ops@example' AND reason = 'provider down'"))
        .isOne();
    CliRun again = run("queues", "pause", "pausable", "--by", "someone", "--reason", "other");
    assertThat(again.status()).as("%s", again).isZero();
    assertThat(again.out()).contains("already paused; the first pause is kept");
    assertThat(again.out()).containsPattern("pausable +false +ops@example");
    assertThat(run("queues", "pause", "idle").status()).isZero(); // a queue with no message

    CliRun list = run("queues", "list");
    assertThat(list.status()).as("%s", list).isZero();
    assertThat(list.out())
        .containsPattern("\\d+ queue\\(s\\), 2 paused")
        .containsPattern("pausable +1 +0 +0 +0 +true +ops@example +\\S+ +provider down")
        .containsPattern(
            "idle +0 +0 +0 +0 +true +"
                + java.util.regex.Pattern.quote(System.getProperty("user.name")));
    JsonNode queues = json(run("queues", "list", "--json")).get("queues");
    JsonNode pausable = null;
    for (JsonNode q : queues) {
      if (q.get("queue").asText().equals("pausable")) {
        pausable = q;
      }
    }
    assertThat(pausable).isNotNull();
    assertThat(pausable.get("paused").asBoolean()).isTrue();
    assertThat(pausable.get("pausedBy").asText()).isEqualTo("ops@example");
    try (OnceOnly once = store.builder().build()) {
      assertThat(once.queue().receive("pausable", 10, Duration.ofMinutes(1))).isEmpty();
    }

    CliRun tooLong = run("queues", "pause", "other", "--reason", "r".repeat(1001));
    assertThat(tooLong.status()).as("%s", tooLong).isNotZero();
    assertThat(tooLong.err()).startsWith("onceonly: ").contains("reason");
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_queue_pauses")).isEqualTo(2);

    assertThat(run("queues", "resume", "pausable").status()).isZero();
    CliRun notPaused = run("queues", "resume", "pausable");
    assertThat(notPaused.status()).isEqualTo(3);
    assertThat(notPaused.err()).startsWith("onceonly: no queue pausable that is paused");
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_queue_pauses WHERE queue = 'pausable'"))
        .isZero();
    try (OnceOnly once = store.builder().build()) {
      assertThat(once.queue().receive("pausable", 10, Duration.ofMinutes(1))).hasSize(1);
    }
  }

  @Test
  void unknownEffectsAreListedAndResolved() throws Exception {
    JsonNode list = json(run("unknown", "list", "--json")).get("unknown");
    assertThat(list).hasSize(1);
    assertThat(list.get(0).get("key").asText()).isEqualTo("pay-1");
    assertThat(list.get(0).get("state").asText()).isEqualTo("UNKNOWN");
    assertThat(list.get(0).get("downstreamKey").asText()).isNotBlank();

    CliRun neither = run("unknown", "resolve", "u-1", "pay-1");
    assertThat(neither.status()).isEqualTo(2);
    CliRun done =
        run("unknown", "resolve", "u-1", "pay-1", "--done", "--result", "{\"charge\":\"ch_1\"}");
    assertThat(done.status()).as("%s", done).isZero();
    assertThat(done.out()).contains("COMPLETED");
    assertThat(
            store.count(
                "SELECT COUNT(*) FROM onceonly_claims WHERE state = 'COMPLETED'"
                    + " AND result = '{\"charge\":\"ch_1\"}'"))
        .isOne();

    CliRun again = run("unknown", "resolve", "u-1", "pay-1", "--not-done");
    assertThat(again.status()).isEqualTo(3);
    assertThat(again.err()).contains("no unknown external effect for u-1/pay-1");
  }

  @Test
  void purgeAppliesRetentionAndDeletesOldRejectionsAndDeadLetters() throws Exception {
    JsonNode first = json(run("purge", "--older-than", "60d", "--json"));
    assertThat(first.get("rejectionsDeleted").asLong()).isZero();
    assertThat(first.get("deadLettersDeleted").asLong()).isZero();
    assertThat(first.get("workflowsDeleted").asLong()).isZero();
    assertThat(first.get("receiptsTombstoned").asLong()).as("past its 30 days").isOne();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_receipts WHERE result IS NULL")).isOne();

    JsonNode second = json(run("purge", "--older-than", "30d", "--json"));
    assertThat(second.get("rejectionsDeleted").asLong()).isOne();
    assertThat(second.get("deadLettersDeleted").asLong()).isOne();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_rejections")).isZero();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_receipts"))
        .as("the tombstone stays")
        .isOne();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_messages"))
        .as("queued work stays")
        .isOne();

    CliRun bad = run("purge", "--older-than", "soon");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("not an age such as 30d");

    for (String huge : List.of("P999999999999D", "999999999d", "36526d", "PT2562047788015215H")) {
      CliRun tooOld = run("purge", "--older-than", huge);
      assertThat(tooOld.status()).as(huge).isEqualTo(2);
      assertThat(tooOld.err()).as(huge).contains("the age must be at most 36525d (100 years)");
      assertThat(tooOld.err()).as(huge).doesNotContain("Exception").doesNotContain("\tat ");
      assertThat(tooOld.err().strip().lines().filter(l -> l.contains("36525d")).count())
          .as(huge)
          .isOne();
    }
  }

  @Test
  void migrateCreatesAndUpgradesButRefusesANewerSchema() throws Exception {
    ContractDatabase fresh = database();
    CliRun created = on(fresh, "migrate");
    assertThat(created.status()).as("%s", created).isZero();
    assertThat(created.out()).contains("from version 0 to 18");
    assertThat(fresh.count("SELECT MAX(version) FROM onceonly_schema_version")).isEqualTo(18);
    assertThat(on(fresh, "migrate").out()).contains("is up to date (version 18)");
    assertThat(on(fresh, "status").out())
        .containsPattern("(?m)^messages +any queue: due +0$")
        .containsPattern("(?m)^dead_letters +none +0$")
        .containsPattern("(?m)^claims +none +0$")
        .contains("oldest pending intent: none");

    // The schema as the version before left it.
    dev.onceonly.contract.MigrationContract.undoLatest(fresh.dialect()).forEach(fresh::exec);
    CliRun older = on(fresh, "status");
    assertThat(older.status()).isEqualTo(5);
    assertThat(older.err())
        .contains("is version 17, older than this tool's 18 (run `onceonly migrate`)");
    assertThat(on(fresh, "migrate").out()).contains("from version 17 to 18");

    fresh.exec(
        "INSERT INTO onceonly_schema_version VALUES (99, 'V99__future.sql', "
            + SqlTimes.literal(fresh.dialect(), 0)
            + ")");
    for (String command : List.of("status", "pending", "migrate")) {
      CliRun newer = on(fresh, command);
      assertThat(newer.status()).as("%s", newer).isEqualTo(5);
      assertThat(newer.err())
          .isEqualTo(
              "onceonly: the schema in "
                  + describe(fresh)
                  + " is version 99, newer than this tool's 18; use a newer OnceOnly\n");
    }
  }

  @Test
  void anEmptyDatabaseHasNoSchemaAndIsLeftEmpty() {
    ContractDatabase empty = database();
    for (String[] args :
        List.of(
            new String[] {"status"},
            new String[] {"pending"},
            new String[] {"receipts", "show", "u-1", "op-17"},
            new String[] {"dead-letters", "list"},
            new String[] {"unknown", "list"},
            new String[] {"purge", "--older-than", "1d"})) {
      CliRun run = on(empty, args);
      assertThat(run.status()).as("%s", run).isEqualTo(5);
      assertThat(run.err())
          .startsWith("onceonly: no OnceOnly schema with prefix onceonly_ in " + describe(empty))
          .hasLineCount(1);
    }
    assertThat(empty.strings(tablesLike("onceonly_"))).as("nothing created").isEmpty();
  }

  @Test
  void thePrefixSelectsTheTables() throws Exception {
    ContractDatabase other = database();
    prepare(other, "app_");
    JsonNode status = json(on(other, "status", "--prefix", "app_", "--json"));
    assertThat(status.get("pendingIntents").asLong()).isEqualTo(2);
    CliRun unprefixed = on(other, "status");
    assertThat(unprefixed.status()).as("no onceonly_ tables in it").isEqualTo(5);
    JsonNode pending = json(on(other, "pending", "--prefix", "app_", "--json"));
    assertThat(pending.get("pending")).hasSize(2);

    CliRun bad = run("status", "--prefix", "Bad-Prefix");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).startsWith("onceonly: --prefix must be");
    CliRun limit = run("pending", "--limit", "0");
    assertThat(limit.status()).isEqualTo(2);
    assertThat(limit.err()).isEqualTo("onceonly: --limit must be between 1 and 10,000\n");
  }

  /** Returns a query for the names of the tables whose name starts with {@code prefix}. */
  String tablesLike(String prefix) {
    return store.dialect() == Dialect.SQLITE
        ? "SELECT name FROM sqlite_master WHERE name LIKE '" + prefix + "%'"
        : "SELECT table_name FROM information_schema.tables"
            + " WHERE table_schema = "
            + (store.dialect() == Dialect.MARIADB ? "DATABASE()" : "current_schema()")
            + " AND table_name LIKE '"
            + prefix
            + "%'";
  }

  @Test
  void aJdbcSqliteUrlReachesTheSameFile() throws Exception {
    assumeTrue(store.dialect() == Dialect.SQLITE, "a jdbc:sqlite: URL");
    String url = "jdbc:sqlite:" + describe(store);
    JsonNode status = json(CliRun.of("status", "--jdbc-url", url, "--json"));
    assertThat(status.get("pendingIntents").asLong()).isEqualTo(2);
    JsonNode dead = json(CliRun.of("dead-letters", "list", "--jdbc-url", url, "--json"));
    assertThat(dead.get("deadLetters").get(0).get("deadAt").asText())
        .isEqualTo(instant("dead_at", "onceonly_dead_letters", "message_key = 'm-1'").toString());
  }

  @Test
  void timestampsAreTheRowsInstantsInAnyTimeZoneOfTheTool() throws Exception {
    assumeTrue(store.dialect() == Dialect.POSTGRESQL, "a server's session time zone");
    String zone = "America/St_Johns"; // UTC-3:30, far from the writer's Pacific/Chatham
    assertThat(TimeZone.getDefault().getID()).isNotEqualTo(zone);
    try (ChildJvm child =
        ChildJvm.start(
            "cli-in-zone",
            dir,
            CliInZone.class,
            zone,
            "dead-letters",
            "list",
            "--json",
            "--jdbc-url",
            url(store))) {
      assertThat(child.awaitExit(Duration.ofSeconds(60))).as(child.diagnostics("exit")).isZero();
      JsonNode list = new ObjectMapper().readTree(String.join("\n", child.lines()));
      Instant deadAt = Instant.parse(list.get("deadLetters").get(0).get("deadAt").asText());
      assertThat(deadAt)
          .isEqualTo(instant("dead_at", "onceonly_dead_letters", "message_key = 'm-1'"))
          .isBetween(THEN, THEN.plusSeconds(2));
    }
  }

  @Test
  void aWrongPasswordIsOneLineAndTheRightOneWorks() throws Exception {
    assumeTrue(store.dialect() == Dialect.POSTGRESQL, "a server's password check");
    String role = "cli_pw";
    String rule = "host all " + role + " all scram-sha-256\n";
    Path hba;
    try (Connection c = EmbeddedPg.connect("postgres");
        Statement s = c.createStatement()) {
      s.execute(
          "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '"
              + role
              + "') THEN CREATE ROLE "
              + role
              + " LOGIN SUPERUSER PASSWORD 'right-pw'; END IF; END$$");
      try (ResultSet rs = s.executeQuery("SHOW hba_file")) {
        rs.next();
        hba = Path.of(rs.getString(1));
      }
    }
    String rules = Files.readString(hba);
    Files.writeString(hba, rule + rules); // before the server's "trust" lines, for this role only
    try {
      reload();
      String url = url(store).replace("user=postgres", "user=" + role);
      Eventually.await(
          Duration.ofSeconds(10),
          "the server asks " + role + " for a password",
          () -> refused(url));

      CliRun wrong = CliRun.of("status", "--jdbc-url", url + "&password=wrong-pw");
      assertThat(wrong.status()).as("%s", wrong).isEqualTo(4);
      assertThat(wrong.err())
          .startsWith("onceonly: cannot connect to " + url + "&password=***: ")
          .contains("password authentication failed for user \"" + role + "\"")
          .doesNotContain("wrong-pw")
          .hasLineCount(1);

      JsonNode status =
          json(CliRun.of("status", "--jdbc-url", url + "&password=right-pw", "--json"));
      assertThat(status.get("pendingIntents").asLong()).isEqualTo(2);
      assertThat(status.get("database").asText()).isEqualTo(url + "&password=***");
    } finally {
      Files.writeString(hba, rules);
      reload();
    }
  }

  private static boolean refused(String url) {
    try (Connection c = DriverManager.getConnection(url + "&password=wrong-pw")) {
      return false;
    } catch (SQLException e) {
      return true;
    }
  }

  private static void reload() throws SQLException {
    try (Connection c = EmbeddedPg.connect("postgres");
        Statement s = c.createStatement()) {
      s.execute("SELECT pg_reload_conf()");
    }
  }
}
