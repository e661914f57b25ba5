package dev.onceonly.internal.receipts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The joined form of (scope, key), {@link IntentKey#toString()}, and the characters every
 * identifier refuses.
 */
class IdentifiersTest {
  /** The queue's message key pattern, which every joined form must fit (length aside). */
  private static final Pattern QUEUE_KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@/-]*");

  /** Separators, escape characters, hex digits, a space, surrogates alone and paired. */
  private static final List<String> UNITS =
      List.of("a", "x", "2", "f", "/", "@", ".", ":", " ", "\uD800", "\uDC00", "\uD83D\uDE00");

  private static List<String> strings(int maxUnits) {
    List<String> out = new ArrayList<>(List.of(""));
    List<String> last = List.of("");
    for (int n = 1; n <= maxUnits; n++) {
      List<String> next = new ArrayList<>();
      for (String prefix : last) {
        for (String u : UNITS) {
          next.add(prefix + u);
        }
      }
      out.addAll(next);
      last = next;
    }
    return out;
  }

  @Test
  void noTwoPairsShareAJoinedFormAndEveryFormFitsTheQueueAlphabet() {
    List<String> parts = strings(2);
    Map<String, String> seen = new HashMap<>();
    for (String scope : parts) {
      for (String key : parts) {
        String joined = IntentKey.of(scope, key).toString();
        String pair = scope + "\u0000" + key;
        assertThat(seen.put(joined, pair)).as("pairs joined as %s", joined).isNull();
        assertThat(joined).matches(QUEUE_KEY);
      }
    }
    assertThat(seen).hasSize(parts.size() * parts.size());
  }

  @Test
  void longerRandomPairsNeverMeetEither() {
    SplittableRandom r = new SplittableRandom(17);
    Map<String, String> seen = new HashMap<>();
    for (int i = 0; i < 50_000; i++) {
      String scope = random(r);
      String key = random(r);
      String previous = seen.put(IntentKey.of(scope, key).toString(), scope + "\u0000" + key);
      assertThat(previous == null || previous.equals(scope + "\u0000" + key)).isTrue();
    }
  }

  private static String random(SplittableRandom r) {
    StringBuilder s = new StringBuilder();
    for (int n = r.nextInt(8); n > 0; n--) {
      s.append(UNITS.get(r.nextInt(UNITS.size())));
    }
    return s.toString();
  }

  @Test
  void defaultScopesAndKeysKeepTheReadableFormOfEarlierVersions() {
    assertThat(IntentKey.of("u-1", "op-17").toString()).isEqualTo("u-1/op-17");
    assertThat(IntentKey.of("user@example.com", "a.b:c_d-e").toString())
        .isEqualTo("user@example.com/a.b:c_d-e");
    assertThat(IntentKey.of("a", "b/c").toString()).isEqualTo("a/b/c");
  }

  @Test
  void otherPairsAreEscapedWithoutASlash() {
    assertThat(IntentKey.of("a/b", "c").toString()).isEqualTo("x:a@2f.b@@c");
    assertThat(IntentKey.of("t\uD800", "k").toString()).isEqualTo("x:t@d800.@@k");
    assertThat(IntentKey.of("caf\u00e9", "k 1").toString()).isEqualTo("x:caf@e9.@@k@20.1");
    assertThat(IntentKey.of("t", "\uD83D\uDE00").toString()).isEqualTo("x:t@@@1f600.");
    assertThat(IntentKey.of("", "k").toString()).isEqualTo("x:@@k");
  }

  @Test
  void checkRefusesControlsAndUnpairedSurrogatesOnly() {
    for (String ok : List.of("", "a", "\uD83D\uDE00", "caf\u00e9", "a b", "\u00a0", "\u2028")) {
      assertThat(Identifiers.check("scope", ok)).isEqualTo(ok);
    }
    for (String bad :
        List.of(
            "\u0000",
            "a\u001F",
            "\u007F",
            "\u0085",
            "\u009F",
            "\uD800",
            "a\uDC00",
            "\uDE00\uD83D")) {
      Throwable thrown = catchThrowable(() -> Identifiers.check("scope", bad));
      assertThat(thrown).isInstanceOf(InvalidRequestException.class);
      assertThat(((InvalidRequestException) thrown).field()).isEqualTo("scope");
      assertThat(thrown).hasMessageContaining("at index");
    }
  }
}
