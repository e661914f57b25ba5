package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every operator command on a prepared store (written 40 days ago by a store with a fixed clock):
 * two pending intents, a receipt past its retention, a queued message and a dead letter, a
 * rejection and an external effect whose lease ran out. Effects are checked on the rows through a
 * fresh connection; error paths give one line on stderr, a typed status and no new file.
 */
class CommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant THEN = Instant.now().minus(Duration.ofDays(40));

  @TempDir Path dir;
  Path file;

  @BeforeEach
  void prepare() throws SQLException {
    file = dir.resolve("store.db");
    prepare(file, "onceonly_");
  }

  static void prepare(Path file, String prefix) throws SQLException {
    MutableClock clock = new MutableClock(THEN);
    try (OnceOnly once = OnceOnly.builder().sqlite(file).tablePrefix(prefix).clock(clock).build()) {
      once.intents().register(IntentKey.of("taller", "lote-2"), "make_report", Map.of("n", 2));
      clock.advance(Duration.ofSeconds(1));
      once.intents().register(IntentKey.of("taller", "lote-1"), "make_report", Map.of("n", 1));
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

  private String db() {
    return file.toString();
  }

  private JsonNode json(CliRun run) throws Exception {
    assertThat(run.status()).as("%s", run).isZero();
    assertThat(run.err()).isEmpty();
    return JSON.readTree(run.out());
  }

  @Test
  void statusCountsRowsPerTableAndState() throws Exception {
    JsonNode status = json(CliRun.of("status", "--db", db(), "--json"));
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
    assertThat(status.get("pendingIntents").asLong()).isEqualTo(2);
    assertThat(status.get("deadLetters").asLong()).isOne();
    assertThat(status.get("oldestPendingAgeSeconds").asLong())
        .isBetween(Duration.ofDays(40).toSeconds() - 60, Duration.ofDays(40).toSeconds() + 60);

    CliRun text = CliRun.of("status", "--db", db());
    assertThat(text.status()).isZero();
    assertThat(text.out())
        .containsPattern("(?m)^table +state +count$")
        .containsPattern("(?m)^dead_letters +mail +1$")
        .contains("oldest pending intent: 40d old")
        .contains("dead letters: 1");
  }

  @Test
  void pendingListsIntentsWithoutReceiptInKeyOrder() throws Exception {
    JsonNode pending = json(CliRun.of("pending", "--db", db(), "--json")).get("pending");
    assertThat(pending).hasSize(2);
    assertThat(pending.get(0).get("key").asText()).isEqualTo("lote-1");
    assertThat(pending.get(1).get("key").asText()).isEqualTo("lote-2");
    assertThat(CliRun.of("pending", "--db", db()).out()).startsWith("2 pending intent(s)\nscope ");
  }

  @Test
  void receiptsShowFindsOneAndSaysWhenThereIsNone() throws Exception {
    JsonNode r = json(CliRun.of("receipts", "show", "u-1", "op-17", "--db", db(), "--json"));
    assertThat(r.get("operation").asText()).isEqualTo("create_ticket");
    assertThat(r.get("result").asText()).isEqualTo("t-1");
    assertThat(r.get("fingerprint").asText()).startsWith("jcs-sha256:");

    CliRun missing = CliRun.of("receipts", "show", "u-1", "nope", "--db", db());
    assertThat(missing.status()).isEqualTo(3);
    assertThat(missing.err()).isEqualTo("onceonly: no receipt for u-1/nope\n");
    CliRun bad = CliRun.of("receipts", "show", "u 1", "k", "--db", db());
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).startsWith("onceonly: ").doesNotContain("\tat ");
  }

  @Test
  void deadLettersAreListedAndRequeued() throws Exception {
    JsonNode list =
        json(CliRun.of("dead-letters", "list", "--db", db(), "--json")).get("deadLetters");
    assertThat(list).hasSize(1);
    assertThat(list.get(0).get("key").asText()).isEqualTo("m-1");
    assertThat(list.get(0).get("lastError").asText()).contains("smtp refused");

    CliRun requeue = CliRun.of("dead-letters", "requeue", "mail", "m-1", "--db", db());
    assertThat(requeue.status()).as("%s", requeue).isZero();
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages WHERE message_key = 'm-1'")).isOne();

    CliRun again = CliRun.of("dead-letters", "requeue", "mail", "m-1", "--db", db());
    assertThat(again.status()).isEqualTo(3);
    assertThat(again.err())
        .startsWith("onceonly: no dead letter m-1 in queue mail")
        .hasLineCount(1);
  }

  @Test
  void unknownEffectsAreListedAndResolved() throws Exception {
    JsonNode list = json(CliRun.of("unknown", "list", "--db", db(), "--json")).get("unknown");
    assertThat(list).hasSize(1);
    assertThat(list.get(0).get("key").asText()).isEqualTo("pay-1");
    assertThat(list.get(0).get("state").asText()).isEqualTo("UNKNOWN");
    assertThat(list.get(0).get("downstreamKey").asText()).isNotBlank();

    CliRun neither = CliRun.of("unknown", "resolve", "u-1", "pay-1", "--db", db());
    assertThat(neither.status()).isEqualTo(2);
    CliRun done =
        CliRun.of(
            "unknown",
            "resolve",
            "u-1",
            "pay-1",
            "--done",
            "--result",
            "{\"charge\":\"ch_1\"}",
            "--db",
            db());
    assertThat(done.status()).as("%s", done).isZero();
    assertThat(done.out()).contains("COMPLETED");
    assertThat(
            count(
                "SELECT COUNT(*) FROM onceonly_claims WHERE state = 'COMPLETED'"
                    + " AND result = '{\"charge\":\"ch_1\"}'"))
        .isOne();

    CliRun again = CliRun.of("unknown", "resolve", "u-1", "pay-1", "--not-done", "--db", db());
    assertThat(again.status()).isEqualTo(3);
    assertThat(again.err()).contains("no unknown external effect for u-1/pay-1");
  }

  @Test
  void purgeAppliesRetentionAndDeletesOldRejectionsAndDeadLetters() throws Exception {
    CliRun notYet = CliRun.of("purge", "--older-than", "60d", "--db", db(), "--json");
    JsonNode first = json(notYet);
    assertThat(first.get("rejectionsDeleted").asLong()).isZero();
    assertThat(first.get("deadLettersDeleted").asLong()).isZero();
    assertThat(first.get("receiptsTombstoned").asLong()).as("past its 30 days").isOne();
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts WHERE result IS NULL")).isOne();

    JsonNode second = json(CliRun.of("purge", "--older-than", "30d", "--db", db(), "--json"));
    assertThat(second.get("rejectionsDeleted").asLong()).isOne();
    assertThat(second.get("deadLettersDeleted").asLong()).isOne();
    assertThat(count("SELECT COUNT(*) FROM onceonly_rejections")).isZero();
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts")).as("the tombstone stays").isOne();
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).as("queued work stays").isOne();

    CliRun bad = CliRun.of("purge", "--older-than", "soon", "--db", db());
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("not an age such as 30d");
  }

  @Test
  void migrateCreatesAndUpgradesButRefusesANewerSchema() throws Exception {
    Path fresh = dir.resolve("new.db");
    CliRun created = CliRun.of("migrate", "--db", fresh.toString());
    assertThat(created.status()).as("%s", created).isZero();
    assertThat(created.out()).contains("from version 0 to 3");
    assertThat(CliRun.of("migrate", "--db", fresh.toString()).out())
        .contains("is up to date (version 3)");
    assertThat(CliRun.of("status", "--db", fresh.toString()).out())
        .containsPattern("(?m)^messages +any queue: due +0$")
        .containsPattern("(?m)^dead_letters +none +0$")
        .containsPattern("(?m)^claims +none +0$")
        .contains("oldest pending intent: none");

    execute(fresh, "DELETE FROM onceonly_schema_version WHERE version = 3");
    CliRun older = CliRun.of("status", "--db", fresh.toString());
    assertThat(older.status()).isEqualTo(5);
    assertThat(older.err())
        .contains("is version 2, older than this tool's 3 (run `onceonly migrate`)");
    assertThat(CliRun.of("migrate", "--db", fresh.toString()).out())
        .contains("from version 2 to 3");

    execute(fresh, "INSERT INTO onceonly_schema_version VALUES (99, 'V99__future.sql', 0)");
    for (String[] args :
        List.of(
            new String[] {"status", "--db", fresh.toString()},
            new String[] {"pending", "--db", fresh.toString()},
            new String[] {"migrate", "--db", fresh.toString()})) {
      CliRun newer = CliRun.of(args);
      assertThat(newer.status()).as("%s", newer).isEqualTo(5);
      assertThat(newer.err())
          .isEqualTo(
              "onceonly: the schema in "
                  + fresh
                  + " is version 99, newer than this tool's 3; use a newer OnceOnly\n");
    }
  }

  @Test
  void aMissingFileIsAnErrorAndIsNotCreated() {
    Path missing = dir.resolve("missing.db");
    for (String[] args :
        List.of(
            new String[] {"status", "--db", missing.toString()},
            new String[] {"pending", "--db", missing.toString()},
            new String[] {"receipts", "show", "u-1", "op-17", "--db", missing.toString()},
            new String[] {"dead-letters", "list", "--db", missing.toString()},
            new String[] {"dead-letters", "requeue", "q", "k", "--db", missing.toString()},
            new String[] {"unknown", "list", "--db", missing.toString()},
            new String[] {"unknown", "resolve", "s", "k", "--done", "--db", missing.toString()},
            new String[] {"purge", "--older-than", "1d", "--db", missing.toString()})) {
      CliRun run = CliRun.of(args);
      assertThat(run.status()).as("%s", run).isEqualTo(3);
      assertThat(run.err()).startsWith("onceonly: no database file at " + missing).hasLineCount(1);
      assertThat(missing).doesNotExist();
    }
  }

  @Test
  void wrongTargetsGiveOneLineAndATypedStatus() throws Exception {
    CliRun none = CliRun.of("status");
    assertThat(none.status()).isEqualTo(2);
    assertThat(none.err()).isEqualTo("onceonly: give exactly one of --db FILE or --jdbc-url URL\n");
    assertThat(CliRun.of("status", "--db", db(), "--jdbc-url", "jdbc:sqlite:x").status())
        .isEqualTo(2);

    CliRun driver =
        CliRun.of("status", "--jdbc-url", "jdbc:nosuchdb://localhost/app?password=hunter2");
    assertThat(driver.status()).isEqualTo(4);
    assertThat(driver.err())
        .startsWith(
            "onceonly: no JDBC driver on the class path accepts jdbc:nosuchdb://localhost/app?password=***")
        .hasLineCount(1);

    CliRun url =
        CliRun.of("status", "--jdbc-url", "jdbc:sqlite:" + dir.resolve("no/such/dir/x.db"));
    assertThat(url.status()).as("%s", url).isEqualTo(4);
    assertThat(url.err()).startsWith("onceonly: cannot connect to jdbc:sqlite:").hasLineCount(1);

    Path empty = Files.createFile(dir.resolve("empty.db"));
    CliRun noSchema = CliRun.of("status", "--db", empty.toString());
    assertThat(noSchema.status()).isEqualTo(5);
    assertThat(noSchema.err()).contains("no OnceOnly schema with prefix onceonly_");

    CliRun prefix = CliRun.of("status", "--db", db(), "--prefix", "Bad-Prefix");
    assertThat(prefix.status()).isEqualTo(2);
    assertThat(prefix.err()).startsWith("onceonly: --prefix must be");

    CliRun limit = CliRun.of("pending", "--db", db(), "--limit", "0");
    assertThat(limit.status()).isEqualTo(2);
    assertThat(limit.err()).isEqualTo("onceonly: --limit must be between 1 and 10,000\n");

    CliRun unknown = CliRun.of("frobnicate");
    assertThat(unknown.status()).isEqualTo(2);
    assertThat(unknown.err()).startsWith("onceonly: Unmatched argument");
  }

  @Test
  void theJdbcUrlPathAndThePrefixWork() throws Exception {
    Path other = dir.resolve("prefixed.db");
    prepare(other, "app_");
    JsonNode status =
        json(
            CliRun.of(
                "status", "--jdbc-url", "jdbc:sqlite:" + other, "--prefix", "app_", "--json"));
    assertThat(status.get("pendingIntents").asLong()).isEqualTo(2);
    assertThat(CliRun.of("status", "--db", other.toString()).status())
        .as("no onceonly_ tables in it")
        .isEqualTo(5);
    JsonNode pending =
        json(
            CliRun.of(
                "pending", "--jdbc-url", "jdbc:sqlite:" + other, "--prefix", "app_", "--json"));
    assertThat(pending.get("pending")).hasSize(2);
  }

  @Test
  void helpListsEveryCommand() {
    CliRun help = CliRun.of("--help");
    assertThat(help.status()).isZero();
    assertThat(help.out())
        .contains(
            "demo", "status", "pending", "receipts", "dead-letters", "unknown", "purge", "migrate");
  }

  private long count(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void execute(Path db, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db.toAbsolutePath());
        Statement s = c.createStatement()) {
      s.executeUpdate(sql);
    }
  }
}
