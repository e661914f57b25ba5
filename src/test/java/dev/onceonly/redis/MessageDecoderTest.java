package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.Canonicalizer;
import dev.onceonly.IntentKey;
import dev.onceonly.redis.MalformedMessageException.Problem;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The decoder reads what {@link StreamMessage} writes, and refuses anything else by name. */
class MessageDecoderTest {
  private static final long SEED = Long.getLong("onceonly.redis.seed", 8_000L);
  private static final MessageDecoder DECODER = MessageDecoder.of(Canonicalizer.defaults());

  @Test
  void readsWhatAMessageWrites() throws Exception {
    StreamMessage message =
        new StreamMessage(
            IntentKey.of("u-1", "op-1"),
            "make_report",
            new ObjectMapper().readTree("{\"b\":1.0,\"a\":[3,2]}"));
    List<byte[]> fields = new ArrayList<>();
    message
        .fields(Canonicalizer.defaults())
        .forEach(
            (k, v) -> {
              fields.add(HostileEntries.utf8(k));
              fields.add(HostileEntries.utf8(v));
            });
    assertThat(message.fields(Canonicalizer.defaults()))
        .containsEntry("arguments", "{\"a\":[3,2],\"b\":1}");
    StreamMessage decoded = DECODER.decode(fields);
    assertThat(decoded.key()).isEqualTo(message.key());
    assertThat(decoded.operation()).isEqualTo(message.operation());
    assertThat(decoded.arguments().toString()).isEqualTo("{\"a\":[3,2],\"b\":1}");
  }

  @Test
  void aTraceparentTravelsAsAFieldAndOneThatIsNotIsDroppedNotRefused() {
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    StreamMessage traced =
        new StreamMessage(
            IntentKey.of("u-1", "op-1"),
            "make_report",
            new ObjectMapper().createObjectNode(),
            traceparent);
    assertThat(traced.fields(Canonicalizer.defaults())).containsEntry("traceparent", traceparent);
    assertThat(DECODER.decode(pairs(traced.fields(Canonicalizer.defaults()))).traceparent())
        .isEqualTo(traceparent);
    assertThat(
            new StreamMessage(
                    IntentKey.of("u-1", "op-1"),
                    "make_report",
                    new ObjectMapper().createObjectNode())
                .fields(Canonicalizer.defaults()))
        .doesNotContainKey("traceparent");
    StreamMessage odd =
        DECODER.decode(
            pairs(
                Map.of(
                    "scope",
                    "a",
                    "key",
                    "b",
                    "operation",
                    "c",
                    "arguments",
                    "{}",
                    "traceparent",
                    "'); DROP TABLE x; --")));
    assertThat(odd.traceparent()).isNull();
    assertThatThrownBy(
            () ->
                new StreamMessage(
                    IntentKey.of("u-1", "op-1"),
                    "make_report",
                    new ObjectMapper().createObjectNode(),
                    "not a traceparent"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("traceparent must be a W3C traceparent");
  }

  @Test
  void namesWhatIsWrong() {
    assertProblem(List.of(HostileEntries.utf8("scope")), Problem.NOT_PAIRED);
    assertProblem(pairs(Map.of("scope", "a", "key", "b", "operation", "c")), Problem.MISSING_FIELD);
    assertProblem(pairs(Map.of("scope", "a", "extra", "b")), Problem.UNKNOWN_FIELD);
    List<byte[]> bad = pairs(Map.of("scope", "a"));
    bad.set(1, new byte[] {(byte) 0xff});
    assertProblem(bad, Problem.NOT_UTF8);
    List<byte[]> twice = pairs(Map.of("scope", "a"));
    twice.addAll(pairs(Map.of("scope", "b")));
    assertProblem(twice, Problem.DUPLICATE_FIELD);
    assertProblem(
        pairs(Map.of("scope", "a", "key", "b", "operation", "c", "arguments", "NaN")),
        Problem.BAD_ARGUMENTS);
    assertProblem(
        pairs(Map.of("arguments", "1".repeat((int) DECODER.maxEntryBytes()))), Problem.TOO_LARGE);
  }

  /** Seeded random hostile entries: each decodes or is refused with a typed error, nothing else. */
  @Test
  void hostileEntriesDecodeOrAreRefusedWithATypedError() {
    Set<Problem> seen = EnumSet.noneOf(Problem.class);
    int accepted = 0;
    for (int trial = 0; trial < 2_000; trial++) {
      HostileEntries entries = new HostileEntries(SEED * 31 + trial);
      List<byte[]> entry = entries.next();
      if (trial % 7 == 0) {
        entry = new ArrayList<>(entry);
        entry.remove(entry.size() - 1);
      }
      try {
        StreamMessage m = DECODER.decode(entry);
        assertThat(m.arguments()).isNotNull();
        accepted++;
      } catch (MalformedMessageException e) {
        seen.add(e.problem());
        assertThat(e.getMessage()).startsWith(e.problem().name());
      } catch (RuntimeException | AssertionError e) {
        fail("seed " + SEED + " trial " + trial + ": " + Trials.show(entry), e);
      }
    }
    assertThat(accepted).isPositive();
    assertThat(seen).containsAll(EnumSet.allOf(Problem.class));
  }

  private static void assertProblem(List<byte[]> entry, Problem problem) {
    assertThatThrownBy(() -> DECODER.decode(entry))
        .isInstanceOfSatisfying(
            MalformedMessageException.class, e -> assertThat(e.problem()).isEqualTo(problem));
  }

  private static List<byte[]> pairs(Map<String, String> fields) {
    List<byte[]> out = new ArrayList<>();
    new java.util.TreeMap<>(fields)
        .forEach(
            (k, v) -> {
              out.add(HostileEntries.utf8(k));
              out.add(HostileEntries.utf8(v));
            });
    return out;
  }

  /** How a failing entry is shown. */
  static final class Trials {
    private Trials() {}

    static String show(List<byte[]> entry) {
      StringBuilder sb = new StringBuilder("[");
      for (byte[] b : entry) {
        String s = new String(b, java.nio.charset.StandardCharsets.UTF_8);
        sb.append(s.length() > 80 ? s.substring(0, 80) + "...(" + s.length() + ")" : s)
            .append(" | ");
      }
      return sb.append("]").toString();
    }
  }
}
