package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.testing.Db;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile input, as seeded random trials and a fuzzer of large random inputs: the canonicalizer,
 * the queue's payload path, intent messages, key and scope validation, and the rejection store.
 * Every input is accepted or refused with a typed {@link OnceOnlyException}; nothing else escapes;
 * a refused input changes no row of any table; a stored rejection stays within its bounds.
 */
class HostileInputProperties {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String[] TABLES = {
    "onceonly_intents",
    "onceonly_receipts",
    "onceonly_rejections",
    "onceonly_messages",
    "onceonly_dead_letters",
    "onceonly_payloads",
    "onceonly_claims"
  };
  private static final String[] NASTY = {
    "",
    " ",
    "'; DROP TABLE onceonly_receipts; --",
    "\" OR 1=1 --",
    "a\u0000b",
    "\\",
    "\u2019\u201c",
    "\ud800",
    "\udfff\ud800",
    "..",
    "a/b",
    "%s%n",
    "\n",
    "ok-key"
  };

  @TempDir Path dir;
  private Path file;
  private OnceOnly once;

  @BeforeEach
  void open() {
    file = dir.resolve("hostile.db");
    once = OnceOnly.openSqlite(file);
  }

  @AfterEach
  void close() {
    once.close();
  }

  /** Random bytes, JSON-like text, mutated JSON and huge documents into the canonicalizer. */
  @Test
  void theCanonicalizerAcceptsOrRefusesTypedWhateverItIsGiven() {
    Canonicalizer c = Canonicalizer.defaults();
    int[] answers = new int[2];
    Trials.forAll(
        2_000,
        t -> {
          byte[] input = t.input("input", hostileDocument(t));
          try {
            byte[] canonical = c.canonicalize(input);
            // What it accepts, it accepts again in canonical form, unchanged.
            assertThat(c.canonicalize(canonical)).isEqualTo(canonical);
            answers[0]++;
          } catch (CanonicalizationException refused) {
            assertThat(refused.problem()).isNotNull();
            answers[1]++;
          }
        });
    assertThat(answers[0]).as("accepted").isPositive();
    assertThat(answers[1]).as("refused").isPositive();
  }

  /**
   * Random scopes, keys, operations and arguments into every write path that takes them: accepted,
   * or refused typed with every table unchanged.
   */
  @Test
  void requestsAreAcceptedOrRefusedTypedAndARefusalWritesNothing() throws Exception {
    int[] answers = new int[2];
    Trials.forAll(
        300,
        t -> {
          String scope = t.input("scope", identifier(t.random()));
          String key = t.input("key", identifier(t.random()));
          String operation = t.input("operation", identifier(t.random()));
          Object arguments = t.input("arguments", arguments(t));
          int path = t.input("path", t.random().nextInt(4));
          List<Long> before = counts();
          try {
            switch (path) {
              case 0 ->
                  once.receipts()
                      .execute(
                          IntentKey.of(scope, key), operation, arguments, Integer.class, tx -> 1);
              case 1 -> once.intents().register(IntentKey.of(scope, key), operation, arguments);
              case 2 -> once.queue().send(scope, key, arguments);
              default -> once.receipts().find(IntentKey.of(scope, key));
            }
            answers[0]++;
          } catch (InvalidRequestException | CanonicalizationException refused) {
            assertThat(counts()).as("rows after a refusal").isEqualTo(before);
            answers[1]++;
          }
        });
    assertThat(answers[0]).as("accepted").isPositive();
    assertThat(answers[1]).as("refused").isPositive();
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts")).isPositive();
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isPositive();
  }

  /** Random JSON trees, and near misses of a real one, into {@link IntentMessage#decode}. */
  @Test
  void intentMessagesDecodeOrAreRefusedTyped() {
    JsonNode good =
        IntentMessage.of(
                once.intents()
                    .find(IntentKey.of("s", "k"))
                    .orElseGet(
                        () -> {
                          once.intents().register(IntentKey.of("s", "k"), "op", Map.of("a", 1));
                          return once.intents().find(IntentKey.of("s", "k")).orElseThrow();
                        }))
            .toJson();
    Trials.forAll(
        2_000,
        t -> {
          JsonNode payload =
              t.input(
                  "payload",
                  t.random().nextBoolean() ? t.json().tree(5) : mutate(good.deepCopy(), t));
          try {
            IntentMessage m = IntentMessage.decode(payload);
            assertThat(m.key()).isNotNull();
          } catch (InvalidRequestException refused) {
            assertThat(refused.field()).isNotNull();
          }
        });
  }

  /** Huge and broken bodies and reasons: each stored rejection within 300 chars and 8 KiB. */
  @Test
  void rejectionsStayWithinTheirBoundsWhateverTheInput() {
    Trials.forAll(
        200,
        t -> {
          String id =
              t.input(
                  "deliveryId", t.random().nextInt(10) == 0 ? "" : "d-" + t.random().nextLong());
          String body = t.input("body", bigText(t.random(), 1 + t.random().nextInt(40_000)));
          String reason = t.input("reason", bigText(t.random(), 1 + t.random().nextInt(2_000)));
          long before = Db.count(file, "SELECT COUNT(*) FROM onceonly_rejections");
          try {
            once.rejections().record(id, body, reason);
          } catch (InvalidRequestException refused) {
            assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_rejections"))
                .isEqualTo(before);
          }
        });
    assertThat(
            Db.count(
                file,
                "SELECT COUNT(*) FROM onceonly_rejections"
                    + " WHERE length(reason) > 300 OR length(CAST(body AS BLOB)) > 8192"))
        .isZero();
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_rejections")).isPositive();
  }

  private List<Long> counts() {
    List<Long> counts = new ArrayList<>();
    for (String table : TABLES) {
      counts.add(Db.count(file, "SELECT COUNT(*) FROM " + table));
    }
    return counts;
  }

  /** Bytes from every corner: random, JSON-like, mutated JSON, deep, long, or invalid UTF-8. */
  private static byte[] hostileDocument(Trials.Trial t) {
    SplittableRandom r = t.random();
    return switch (r.nextInt(6)) {
      case 0 -> t.json().bytes(512);
      case 1 -> t.json().jsonishText().getBytes(StandardCharsets.UTF_8);
      case 2 -> mutateBytes(t.json().tree(6).toString().getBytes(StandardCharsets.UTF_8), r);
      case 3 ->
          ("[".repeat(r.nextInt(2_000)) + "]".repeat(r.nextInt(2_000)))
              .getBytes(StandardCharsets.UTF_8);
      case 4 ->
          ("{\"a\":\"" + "x".repeat(r.nextInt(200_000)) + "\"}").getBytes(StandardCharsets.UTF_8);
      default -> {
        byte[] big =
            new byte
                [r.nextInt(8) == 0
                    ? r.nextInt(1 << 21)
                    : r.nextInt(1 << 14)]; // now and then up to 2 MiB, past the 1 MiB limit
        String alphabet = " [1,\"\u00e9\"]{}:";
        for (int i = 0; i < big.length; i++) {
          big[i] = (byte) alphabet.charAt(r.nextInt(alphabet.length()));
        }
        yield big;
      }
    };
  }

  private static byte[] mutateBytes(byte[] bytes, SplittableRandom r) {
    int changes = 1 + r.nextInt(4);
    for (int i = 0; i < changes && bytes.length > 0; i++) {
      bytes[r.nextInt(bytes.length)] = (byte) r.nextInt(256);
    }
    return bytes;
  }

  private static JsonNode mutate(JsonNode good, Trials.Trial t) {
    var object = (com.fasterxml.jackson.databind.node.ObjectNode) good;
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    String name = names.get(t.random().nextInt(names.size()));
    switch (t.random().nextInt(3)) {
      case 0 -> object.remove(name);
      case 1 -> object.set(name, t.json().scalar());
      default -> object.put(name, NASTY[t.random().nextInt(NASTY.length)]);
    }
    return object;
  }

  private static String identifier(SplittableRandom r) {
    return switch (r.nextInt(4)) {
      case 0 -> NASTY[r.nextInt(NASTY.length)];
      case 1 -> "k-" + r.nextInt(50);
      case 2 -> "k".repeat(1 + r.nextInt(300));
      default -> new RandomJson(r).string(20);
    };
  }

  /** Arguments as a caller might pass them: trees, maps with odd values, beans Jackson refuses. */
  private static Object arguments(Trials.Trial t) {
    SplittableRandom r = t.random();
    Map<String, Object> odd = new LinkedHashMap<>();
    switch (r.nextInt(8)) {
      case 0 -> {
        return t.json().tree(4);
      }
      case 1 -> odd.put("nan", Double.NaN);
      case 2 -> odd.put("inf", Float.NEGATIVE_INFINITY);
      case 3 -> odd.put("big", new BigDecimal("1e400"));
      case 4 -> odd.put("bean", new Object());
      case 5 -> odd.put("bytes", new byte[] {0, 1, (byte) 0xFF});
      case 6 -> odd.put("lone", "\ud800");
      default -> {
        return textTree(t.json().jsonishText());
      }
    }
    return odd;
  }

  private static Object textTree(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (Exception notJson) {
      return text; // a plain string is a JSON string argument
    }
  }

  private static String bigText(SplittableRandom r, int chars) {
    StringBuilder b = new StringBuilder(chars);
    while (b.length() < chars) {
      b.append(
          switch (r.nextInt(5)) {
            case 0 -> "\ud83d\ude00";
            case 1 -> "\ud800";
            case 2 -> "\u00e9";
            case 3 -> "\u0000";
            default -> "x";
          });
    }
    return b.toString();
  }
}
