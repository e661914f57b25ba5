package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.Registration;
import dev.onceonly.Rejection;
import dev.onceonly.external.CancelResult;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.testing.Db;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Classic SQL injection payloads as every string a caller hands the library: scopes and keys (with
 * patterns opened up so that they reach the SQL), operations' arguments, queue payloads, rejection
 * ids, reasons and bodies, dead-letter reasons, cancellation reasons, and the table prefix. Each is
 * either refused typed or stored and read back exactly; afterwards every table is still there and
 * the file is sound.
 */
class SqlInjectionTest {
  static final List<String> PAYLOADS =
      List.of(
          "'; DROP TABLE onceonly_receipts; --",
          "\" OR 1=1 --",
          "' OR '1'='1",
          "x'); DELETE FROM onceonly_intents; --",
          "\\'; DROP TABLE onceonly_messages; --\\",
          "back\\slash\\\\",
          "nul\u0000byte",
          "\u2019; DROP TABLE onceonly_claims; \u201c\u201d",
          "%_*?[]",
          "Robert'); DROP TABLE onceonly_rejections;--",
          "1; ATTACH DATABASE '/tmp/pwned.db' AS pwned; --");

  private static final List<String> TABLES =
      List.of(
          "onceonly_attempt_errors",
          "onceonly_claims",
          "onceonly_dead_letters",
          "onceonly_intents",
          "onceonly_messages",
          "onceonly_payloads",
          "onceonly_queue_pauses",
          "onceonly_rate_claims",
          "onceonly_receipts",
          "onceonly_rejections",
          "onceonly_schedules",
          "onceonly_schema_version",
          "onceonly_unique_keys",
          "onceonly_workflow_steps",
          "onceonly_workflows");

  @TempDir Path dir;
  private Path file;

  @BeforeEach
  void setUp() {
    file = dir.resolve("inject.db");
  }

  static List<String> payloads() {
    return PAYLOADS;
  }

  /**
   * What a free text (a reason, an error text, a rejected body) is stored as: the same, except that
   * each NUL becomes U+FFFD, since PostgreSQL text cannot hold NUL and both dialects store alike.
   */
  private static String asText(String payload) {
    return payload.replace((char) 0, (char) 0xFFFD);
  }

  /**
   * What a payload is as an identifier (scope, key, delivery id): the same with each NUL written as
   * a backslash and a zero, since identifiers refuse control characters whatever the pattern
   * ({@link #aControlCharacterInAnIdentifierIsRefusedTypedAndWritesNothing}).
   */
  private static String asIdentifier(String payload) {
    return payload.replace("\u0000", "\\0");
  }

  @ParameterizedTest
  @MethodSource("payloads")
  void aPayloadAsScopeKeyAndArgumentsRoundTripsExactly(String text) throws Exception {
    String payload = asIdentifier(text);
    try (OnceOnly once =
        OnceOnly.builder()
            .sqlite(file)
            .scopePattern("(?s).{1,200}")
            .keyPattern("(?s).{1,200}")
            .build()) {
      IntentKey key = IntentKey.of(payload, payload);
      Map<String, Object> args = Map.of(payload, payload);
      assertThat(once.intents().register(key, "op", args))
          .isInstanceOf(Registration.Registered.class);
      Outcome<String> first = once.receipts().execute(key, "op", args, String.class, tx -> payload);
      assertThat(first).isInstanceOf(Outcome.Created.class);
      Outcome<String> again =
          once.receipts()
              .execute(
                  key,
                  "op",
                  args,
                  String.class,
                  tx -> {
                    throw new AssertionError("ran twice");
                  });
      assertThat(again).isInstanceOf(Outcome.Repeated.class);
      assertThat(again.resultOrThrow()).isEqualTo(payload);
      assertThat(once.intents().find(key).orElseThrow().arguments().get(payload).textValue())
          .isEqualTo(payload);
      assertThat(once.receipts().find(key)).isPresent();
      assertThat(once.externalEffects().cancel(key, payload))
          .isInstanceOf(CancelResult.Cancelled.class);
      assertThat(once.externalEffects().find(key).orElseThrow().toString()).contains(payload);
    }
    assertThat(Db.strings(file, "SELECT scope FROM onceonly_receipts")).containsExactly(payload);
    assertThat(Db.strings(file, "SELECT intent_key FROM onceonly_intents"))
        .containsExactly(payload);
    assertThat(Db.strings(file, "SELECT cancel_reason FROM onceonly_claims"))
        .containsExactly(asText(payload));
    expectIntact();
  }

  @ParameterizedTest
  @MethodSource("payloads")
  void aPayloadInTheQueueAndTheRejectionsRoundTripsExactly(String payload) {
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      once.queue().send(Message.of("q", "m-1", Map.of("text", payload, payload, 1)));
      Delivery d = once.queue().receive("q", 1, java.time.Duration.ofSeconds(30)).get(0);
      assertThat(d.payload().get("text").textValue()).isEqualTo(payload);
      assertThat(d.payload().get(payload).intValue()).isEqualTo(1);
      once.queue().deadLetter(d.lease(), payload);
      assertThat(once.queue().findDeadLetter("q", "m-1").orElseThrow().lastError())
          .isEqualTo(asText(payload));

      assertThat(once.rejections().record(asIdentifier(payload), payload, payload)).isTrue();
      Rejection r = once.rejections().list(10).get(0);
      assertThat(r.deliveryId()).isEqualTo(asIdentifier(payload));
      assertThat(r.reason()).isEqualTo(asText(payload));
      assertThat(r.bodyExcerpt()).isEqualTo(asText(payload));
    }
    expectIntact();
  }

  @ParameterizedTest
  @MethodSource("payloads")
  void aPayloadUnderTheDefaultPatternsIsRefusedTypedAndWritesNothing(String payload) {
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      assertThatThrownBy(
              () ->
                  once.receipts()
                      .execute(IntentKey.of(payload, "k"), "op", Map.of(), String.class, tx -> "x"))
          .isInstanceOf(InvalidRequestException.class);
      assertThatThrownBy(
              () ->
                  once.receipts()
                      .execute(IntentKey.of("s", payload), "op", Map.of(), String.class, tx -> "x"))
          .isInstanceOf(InvalidRequestException.class);
      assertThatThrownBy(() -> once.queue().send(payload, "k", Map.of()))
          .isInstanceOf(InvalidRequestException.class);
      assertThatThrownBy(() -> once.queue().send("q", payload, Map.of()))
          .isInstanceOf(InvalidRequestException.class);
    }
    for (String table : TABLES) {
      if (!table.endsWith("schema_version")) {
        assertThat(Db.count(file, "SELECT COUNT(*) FROM " + table)).as(table).isZero();
      }
    }
    expectIntact();
  }

  @Test
  void aControlCharacterInAnIdentifierIsRefusedTypedAndWritesNothing() {
    try (OnceOnly once =
        OnceOnly.builder()
            .sqlite(file)
            .scopePattern("(?s).{1,200}")
            .keyPattern("(?s).{1,200}")
            .build()) {
      for (String payload : PAYLOADS) {
        if (payload.equals(asIdentifier(payload))) {
          continue;
        }
        assertThatThrownBy(
                () -> once.intents().register(IntentKey.of(payload, "k"), "op", Map.of()))
            .isInstanceOf(InvalidRequestException.class)
            .hasMessageStartingWith("scope: ");
        assertThatThrownBy(
                () ->
                    once.receipts()
                        .execute(
                            IntentKey.of("s", payload), "op", Map.of(), String.class, tx -> "x"))
            .isInstanceOf(InvalidRequestException.class)
            .hasMessageStartingWith("key: ");
        assertThatThrownBy(() -> once.rejections().record(payload, "{}", "r"))
            .isInstanceOf(InvalidRequestException.class)
            .hasMessageStartingWith("deliveryId: ");
      }
    }
    for (String table : TABLES) {
      if (!table.endsWith("schema_version")) {
        assertThat(Db.count(file, "SELECT COUNT(*) FROM " + table)).as(table).isZero();
      }
    }
    expectIntact();
  }

  @Test
  void aTablePrefixCarryingSqlIsRefusedBeforeAnythingIsOpened() {
    for (String payload : PAYLOADS) {
      assertThatThrownBy(() -> OnceOnly.builder().tablePrefix(payload))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> OnceOnly.builder().tablePrefix("ok_" + payload))
          .isInstanceOf(IllegalArgumentException.class);
    }
    OnceOnly.openSqlite(file).close();
    expectIntact();
  }

  private void expectIntact() {
    assertThat(
            Db.strings(
                file,
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'onceonly%'"
                    + " ORDER BY name"))
        .containsExactlyElementsOf(TABLES);
    assertThat(Db.strings(file, "PRAGMA integrity_check")).containsExactly("ok");
    assertThat(Db.strings(file, "PRAGMA database_list")).hasSize(1);
  }
}
