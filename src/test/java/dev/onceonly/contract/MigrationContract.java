package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.SchemaVersionException;
import dev.onceonly.StoreException;
import dev.onceonly.testing.Race;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract of schema migrations: applied once on open, refused when the database is newer,
 * separated by table prefix, and safe when several instances open a new database at once.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class MigrationContract extends ContractSupport {
  /** The migrations this version ships, in order; update with every new migration. */
  static final List<String> MIGRATIONS =
      List.of(
          "V1__receipt_core.sql",
          "V2__job_queue.sql",
          "V3__external_effects.sql",
          "V4__live_receipts_index.sql",
          "V5__schedules.sql",
          "V6__priorities.sql",
          "V7__unique_keys.sql",
          "V8__message_traceparent.sql",
          "V9__leased.sql",
          "V10__partitions.sql",
          "V11__trace_context.sql",
          "V12__overview_indexes.sql",
          "V13__workflows.sql",
          "V14__workflow_trace.sql",
          "V15__status_probes.sql",
          "V16__rate_limits.sql",
          "V17__queue_pauses.sql",
          "V18__attempt_errors.sql");

  /** The version a migration's name gives ({@code V<n>__}). */
  static int version(String script) {
    return Integer.parseInt(script.substring(1, script.indexOf("__")));
  }

  /** The newest version. */
  static final int LATEST = version(MIGRATIONS.get(MIGRATIONS.size() - 1));

  /** The version before the newest. */
  static final int PREVIOUS = version(MIGRATIONS.get(MIGRATIONS.size() - 2));

  /**
   * What takes a database of the newest version back to the one before: the statements that undo
   * the newest script, then its row. A new script changes this.
   *
   * @param dialect the database's
   * @return the statements, in order
   */
  public static List<String> undoLatest(dev.onceonly.sql.Dialect dialect) {
    return List.of(
        "DROP TABLE onceonly_attempt_errors",
        "DELETE FROM onceonly_schema_version WHERE version = " + LATEST);
  }

  /** What undoes version 17, the paused queues. */
  private static List<String> undoQueuePauses() {
    return List.of(
        "DROP TABLE onceonly_queue_pauses",
        "DELETE FROM onceonly_schema_version WHERE version = 17");
  }

  /** What undoes version 16, the claims charged to rate limits. */
  private static List<String> undoRateLimits() {
    return List.of(
        "DROP TABLE onceonly_rate_claims",
        "DELETE FROM onceonly_schema_version WHERE version = 16");
  }

  /** What undoes version 15, the status probes' columns of the claims. */
  private static List<String> undoStatusProbes(dev.onceonly.sql.Dialect dialect) {
    return List.of(
        "DROP INDEX onceonly_claims_probe_due"
            + (dialect == dev.onceonly.sql.Dialect.MARIADB ? " ON onceonly_claims" : ""),
        "ALTER TABLE onceonly_claims DROP COLUMN probes",
        "ALTER TABLE onceonly_claims DROP COLUMN next_probe_at",
        "ALTER TABLE onceonly_claims DROP COLUMN last_probe_at",
        "ALTER TABLE onceonly_claims DROP COLUMN last_probe_answer");
  }

  /** Every table the migrations create, without prefix, in alphabetical order. */
  static final List<String> TABLES =
      List.of(
          "attempt_errors",
          "claims",
          "dead_letters",
          "intents",
          "messages",
          "payloads",
          "queue_pauses",
          "rate_claims",
          "receipts",
          "rejections",
          "schedules",
          "schema_version",
          "unique_keys",
          "workflow_steps",
          "workflows");

  static final List<String> DEFAULT_TABLES = prefixed("onceonly_");

  static List<String> prefixed(String prefix) {
    return TABLES.stream().map(t -> prefix + t).toList();
  }

  /**
   * {@return every table of {@code prefix} on this test's dialect}: on MariaDB also {@code
   * key_locks}, the rows its key locks take (docs/mariadb.md)
   */
  List<String> tablesOf(String prefix) {
    List<String> tables = new java.util.ArrayList<>(prefixed(prefix));
    if (dialect() == dev.onceonly.sql.Dialect.MARIADB) {
      tables.add(prefix + "key_locks");
      tables.sort(null);
    }
    return tables;
  }

  static List<String> versions() {
    return MIGRATIONS.stream().map(m -> Integer.toString(version(m))).toList();
  }

  @Test
  void aNewDatabaseGetsSchemaVersion1() {
    start();
    long openedAt = clock.millis();
    once.close();
    assertThat(tables()).containsExactlyElementsOf(tablesOf("onceonly_"));
    assertThat(strings("SELECT version FROM onceonly_schema_version ORDER BY version"))
        .containsExactlyElementsOf(versions());
    assertThat(strings("SELECT description FROM onceonly_schema_version ORDER BY version"))
        .containsExactlyElementsOf(MIGRATIONS);
    assertThat(count("SELECT MIN(" + millis("applied_at") + ") FROM onceonly_schema_version"))
        .isEqualTo(openedAt);
    assertThat(count("SELECT MAX(" + millis("applied_at") + ") FROM onceonly_schema_version"))
        .isEqualTo(openedAt);
  }

  @Test
  void reopeningDoesNotApplyAgainAndKeepsTheData() {
    start();
    long openedAt = clock.millis();
    once.intents().register(IntentKey.of("s", "k"), "job", Map.of());
    clock.advance(Duration.ofDays(3));
    reopen();
    reopen();
    assertThat(count("SELECT COUNT(*) FROM onceonly_schema_version")).isEqualTo(MIGRATIONS.size());
    assertThat(count("SELECT MAX(" + millis("applied_at") + ") FROM onceonly_schema_version"))
        .isEqualTo(openedAt);
    assertThat(count("SELECT COUNT(*) FROM onceonly_intents")).isOne();
    assertThat(once.intents().find(IntentKey.of("s", "k"))).isPresent();
  }

  @Test
  void aNewerSchemaIsRefusedAndLeftAlone() {
    start();
    once.close();
    exec(
        "INSERT INTO onceonly_schema_version (version, description, applied_at)"
            + " VALUES (99, 'V99__from_the_future.sql', "
            + timeLiteral(0)
            + ")");
    Map<String, List<String>> before = snapshot();

    assertThatThrownBy(() -> open(clock, b -> {}))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("newer")
        .hasMessageContaining("99");
    assertThat(snapshot()).isEqualTo(before);

    // The failed open released the database: once the row is gone, it opens normally.
    exec("DELETE FROM onceonly_schema_version WHERE version = 99");
    OnceOnly reopened = track(open(clock, b -> {}));
    assertThat(reopened.intents().pending(1)).isEmpty();
  }

  @Test
  void aTablePrefixNamesEveryTable() {
    start(b -> b.tablePrefix("acme_"));
    once.intents().register(IntentKey.of("s", "k"), "job", Map.of());
    reopen();
    assertThat(tables()).containsExactlyElementsOf(tablesOf("acme_"));
    assertThat(count("SELECT COUNT(*) FROM acme_intents")).isOne();
  }

  @Test
  void twoPrefixesCoexistInOneDatabase() {
    start();
    OnceOnly acme = track(open(clock, b -> b.tablePrefix("acme_")));
    IntentKey key = IntentKey.of("u-1", "op-17");

    Outcome<String> plain =
        once.receipts().execute(key, "op", Map.of("v", 1), String.class, c -> "plain");
    Outcome<String> other =
        acme.receipts().execute(key, "op", Map.of("v", 2), String.class, c -> "acme");
    assertThat(plain).isInstanceOf(Outcome.Created.class);
    assertThat(other).isInstanceOf(Outcome.Created.class);
    acme.close();
    reopen();

    List<String> both = new java.util.ArrayList<>(tablesOf("acme_"));
    both.addAll(tablesOf("onceonly_"));
    assertThat(tables()).containsExactlyElementsOf(both);
    assertThat(strings("SELECT result FROM onceonly_receipts")).containsExactly("\"plain\"");
    assertThat(strings("SELECT result FROM acme_receipts")).containsExactly("\"acme\"");
    assertThat(count("SELECT COUNT(*) FROM onceonly_schema_version")).isEqualTo(MIGRATIONS.size());
    assertThat(count("SELECT COUNT(*) FROM acme_schema_version")).isEqualTo(MIGRATIONS.size());
    OnceOnly acmeAgain = track(open(clock, b -> b.tablePrefix("acme_")));
    assertThat(acmeAgain.receipts().execute(key, "op", Map.of("v", 2), String.class, c -> "again"))
        .isInstanceOf(Outcome.Repeated.class);
    assertThat(once.receipts().execute(key, "op", Map.of("v", 2), String.class, c -> "again"))
        .isInstanceOf(Outcome.Conflict.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "x; DROP TABLE",
        "",
        "Acme_",
        "1acme_",
        "_acme",
        "acme-",
        "acme.",
        "acme_\"",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" // 32 characters
      })
  void anInvalidPrefixIsRefusedBeforeAnythingIsCreated(String prefix) {
    assertThatThrownBy(() -> open(clock, b -> b.tablePrefix(prefix)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tablePrefix");
    assertThat(tables()).isEmpty();
  }

  @Test
  void aNullPrefixIsRefused() {
    assertThatThrownBy(() -> open(clock, b -> b.tablePrefix(null)))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void eightInstancesOpeningANewDatabaseAtOnceAllSucceed() throws Exception {
    List<OnceOnly> opened = Race.run(8, i -> () -> track(open(clock, b -> {})));

    assertThat(opened).hasSize(8).doesNotContainNull();
    assertThat(count("SELECT COUNT(*) FROM onceonly_schema_version")).isEqualTo(MIGRATIONS.size());
    assertThat(tables()).containsExactlyElementsOf(tablesOf("onceonly_"));
    for (int i = 0; i < opened.size(); i++) {
      opened.get(i).intents().register(IntentKey.of("s", "k-" + i), "job", Map.of());
    }
    assertThat(count("SELECT COUNT(*) FROM onceonly_intents")).isEqualTo(8);
  }

  @Test
  void withMigrationsValidateAnEmptyDatabaseIsRefusedAndNothingIsCreated() {
    assertThatThrownBy(() -> open(clock, b -> b.migrations(OnceOnly.Migrations.VALIDATE)))
        .isInstanceOfSatisfying(
            SchemaVersionException.class,
            e -> {
              assertThat(e.found()).isZero();
              assertThat(e.required()).isEqualTo(LATEST);
            })
        .hasMessageContaining("no OnceOnly schema with prefix onceonly_")
        .hasMessageContaining("migrations are off")
        .hasMessageContaining(
            "apply V1__receipt_core.sql to " + MIGRATIONS.get(MIGRATIONS.size() - 1))
        .hasMessageContaining("onceonly migrate");
    assertThat(tables()).isEmpty();
  }

  @Test
  void withMigrationsValidateAnOlderSchemaIsRefusedAndLeftAlone() {
    start();
    once.intents().register(IntentKey.of("s", "k"), "job", Map.of());
    once.close();
    asVersion12();
    Map<String, List<String>> before = snapshot();

    assertThatThrownBy(() -> open(clock, b -> b.migrations(OnceOnly.Migrations.VALIDATE)))
        .isInstanceOfSatisfying(
            SchemaVersionException.class, e -> assertThat(e.found()).isEqualTo(12))
        .hasMessageContaining(
            "the database schema is version 12, older than this library's " + LATEST)
        .hasMessageContaining(
            "apply V13__workflows.sql to " + MIGRATIONS.get(MIGRATIONS.size() - 1) + " from");
    assertThat(snapshot()).isEqualTo(before);

    // Applying opens it again, and the data is still there.
    OnceOnly migrated = track(open(clock, b -> {}));
    assertThat(migrated.intents().find(IntentKey.of("s", "k"))).isPresent();
    assertThat(strings("SELECT version FROM onceonly_schema_version ORDER BY version"))
        .containsExactlyElementsOf(versions());
  }

  @Test
  void withMigrationsValidateACurrentSchemaOpensAndWritesRows() {
    start();
    once.close();
    Map<String, List<String>> before = snapshot();
    OnceOnly validated = track(open(clock, b -> b.migrations(OnceOnly.Migrations.VALIDATE)));
    assertThat(snapshot()).isEqualTo(before);
    validated.intents().register(IntentKey.of("s", "k"), "job", Map.of());
    validated.close();
    assertThat(count("SELECT COUNT(*) FROM onceonly_intents")).isOne();
    assertThat(count("SELECT COUNT(*) FROM onceonly_schema_version")).isEqualTo(MIGRATIONS.size());
  }

  @Test
  void withMigrationsValidateANewerSchemaIsRefused() {
    start();
    once.close();
    exec(
        "INSERT INTO onceonly_schema_version (version, description, applied_at)"
            + " VALUES (99, 'V99__from_the_future.sql', "
            + timeLiteral(0)
            + ")");
    assertThatThrownBy(() -> open(clock, b -> b.migrations(OnceOnly.Migrations.VALIDATE)))
        .isInstanceOfSatisfying(
            SchemaVersionException.class, e -> assertThat(e.found()).isEqualTo(99))
        .hasMessageContaining("newer");
  }

  @Test
  void migrationsNullIsRefused() {
    assertThatThrownBy(() -> OnceOnly.builder().migrations(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("migrations");
  }

  /**
   * Makes the database what version 7 left: without version 8's row and without its column (a
   * message sent then had no traceparent).
   */
  private void asAtVersion7() {
    exec(
        "DELETE FROM onceonly_schema_version WHERE version >= 8",
        dropIndex("IF EXISTS onceonly_messages_leased", "onceonly_messages"),
        dropIndex("IF EXISTS onceonly_dead_letters_dead_at", "onceonly_dead_letters"),
        "ALTER TABLE onceonly_messages DROP COLUMN traceparent",
        "ALTER TABLE onceonly_messages DROP COLUMN leased",
        "ALTER TABLE onceonly_messages DROP COLUMN partition_key",
        "ALTER TABLE onceonly_dead_letters DROP COLUMN partition_key",
        "ALTER TABLE onceonly_dead_letters DROP COLUMN traceparent",
        "ALTER TABLE onceonly_intents DROP COLUMN traceparent");
  }

  /** Makes the database what version 12 left: without the workflows' tables and their versions. */
  private void asVersion12() {
    exec(
        java.util.stream.Stream.concat(
                java.util.stream.Stream.of(
                        undoLatest(dialect()),
                        undoQueuePauses(),
                        undoRateLimits(),
                        undoStatusProbes(dialect()))
                    .flatMap(List::stream),
                java.util.stream.Stream.of(
                    "DELETE FROM onceonly_schema_version WHERE version >= 13",
                    "DROP TABLE onceonly_workflow_steps",
                    "DROP TABLE onceonly_workflows"))
            .toArray(String[]::new));
  }

  /** Takes the schema back to version 11: before the workflows and the overview indexes. */
  private void asVersion11() {
    asVersion12();
    exec(
        "DELETE FROM onceonly_schema_version WHERE version = 12",
        dropIndex("onceonly_messages_leased", "onceonly_messages"),
        dropIndex("onceonly_dead_letters_dead_at", "onceonly_dead_letters"));
  }

  /** {@code DROP INDEX} in the dialect's words: MariaDB names the index's table. */
  private String dropIndex(String index, String table) {
    return "DROP INDEX "
        + index
        + (dialect() == dev.onceonly.sql.Dialect.MARIADB ? " ON " + table : "");
  }

  @Test
  void aVersion7DatabaseUpgradesAndItsWaitingMessagesAreDeliveredWithoutATraceparent() {
    start();
    once.queue().send("jobs", "before", Map.of("n", 1));
    once.close();
    asAtVersion7();
    assertThat(strings("SELECT message_key FROM onceonly_messages")).containsExactly("before");

    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    OnceOnly upgraded = track(open(clock, b -> b.traceContext(() -> traceparent)));
    assertThat(strings("SELECT version FROM onceonly_schema_version ORDER BY version"))
        .containsExactlyElementsOf(versions());
    upgraded.queue().send("jobs", "after", Map.of("n", 2));
    assertThat(strings("SELECT traceparent FROM onceonly_messages ORDER BY message_key"))
        .containsExactly(traceparent, null); // "after", then "before"

    List<dev.onceonly.queue.Delivery> delivered =
        upgraded.queue().receive("jobs", 10, Duration.ofMinutes(1));
    assertThat(delivered)
        .extracting(d -> d.key() + " " + d.traceparent())
        .containsExactlyInAnyOrder("before null", "after " + traceparent);
  }

  @Test
  void aVersion11DatabaseGetsTheOverviewIndexesAndCountsAlike() throws Exception {
    start();
    once.queue().send("jobs", "due", Map.of());
    once.queue().send("jobs", "held", Map.of());
    once.queue().receive("jobs", 1, Duration.ofMinutes(1));
    once.queue().send("dead", "d", Map.of());
    once.queue()
        .deadLetter(once.queue().receive("dead", 1, Duration.ofMinutes(1)).get(0).lease(), "x");
    dev.onceonly.maintenance.StoreStatus before = once.maintenance().status();
    once.close();
    asVersion11();
    assertThat(indexes("onceonly_messages")).doesNotContain("onceonly_messages_leased");

    OnceOnly upgraded = track(open(clock, b -> {}));
    assertThat(indexes("onceonly_messages")).contains("onceonly_messages_leased");
    assertThat(indexes("onceonly_dead_letters")).contains("onceonly_dead_letters_dead_at");
    assertThat(upgraded.maintenance().status()).isEqualTo(before);
    assertThat(before.messages())
        .containsEntry("jobs", new dev.onceonly.maintenance.StoreStatus.QueueCounts(1, 1, 0));
    assertThat(upgraded.maintenance().deadLetteredPerMinute(1).counts()).containsExactly(1L);
  }

  /** The names of a table's indexes, lowercase, from the driver's metadata. */
  private List<String> indexes(String table) throws Exception {
    try (java.sql.Connection c = connect();
        java.sql.ResultSet rs =
            c.getMetaData().getIndexInfo(c.getCatalog(), c.getSchema(), table, false, false)) {
      List<String> out = new java.util.ArrayList<>();
      while (rs.next()) {
        if (rs.getString("INDEX_NAME") != null) {
          out.add(rs.getString("INDEX_NAME").toLowerCase(java.util.Locale.ROOT));
        }
      }
      return out;
    }
  }

  @Test
  void aVersion9DatabaseUpgradesAndItsWaitingMessagesAreOfNoPartition() {
    start();
    for (int i = 0; i < 3; i++) {
      once.queue().send("jobs", "before-" + i, Map.of("n", i));
    }
    once.close();
    asVersion12();

    OnceOnly upgraded = track(open(clock, b -> b.concurrencyLimitPerPartition("jobs", 1)));
    assertThat(strings("SELECT version FROM onceonly_schema_version ORDER BY version"))
        .containsExactlyElementsOf(versions());
    for (int i = 0; i < 3; i++) {
      upgraded
          .queue()
          .send(dev.onceonly.queue.Message.of("jobs", "after-" + i, Map.of("n", i)).partition("p"));
    }
    assertThat(strings("SELECT partition_key FROM onceonly_messages ORDER BY message_key"))
        .containsExactly("p", "p", "p", null, null, null);
    assertThat(upgraded.queue().receive("jobs", 10, Duration.ofMinutes(1)))
        .extracting(dev.onceonly.queue.Delivery::key)
        .as("the old messages are not limited; the partition takes one")
        .containsExactlyInAnyOrder("before-0", "before-1", "before-2", "after-0");
  }

  @Test
  void aTraceContextThatIsNotATraceparentOrThrowsIsNotStoredAndTheSendSucceeds() {
    start(b -> b.traceContext(() -> "not a traceparent'); DROP TABLE x; --"));
    assertThat(once.queue().send("jobs", "odd", Map.of()).status())
        .isEqualTo(dev.onceonly.queue.SendResult.Status.SENT);
    OnceOnly throwing =
        track(
            open(
                clock,
                b ->
                    b.traceContext(
                        () -> {
                          throw new IllegalStateException("tracer broken");
                        })));
    assertThat(throwing.queue().send("jobs", "thrown", Map.of()).status())
        .isEqualTo(dev.onceonly.queue.SendResult.Status.SENT);
    assertThat(strings("SELECT traceparent FROM onceonly_messages ORDER BY message_key"))
        .containsExactly(null, null);
  }
}
