package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.CanonicalizationException.Problem;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the canonicalizer with Turkish as the default locale, where {@code "I".toLowerCase()} is
 * dotless {@code "ı"} and {@code "i".toUpperCase()} is {@code "İ"}: nothing may change.
 */
class CanonicalizerTurkishLocaleTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static Locale saved;

  @BeforeAll
  static void useTurkishLocale() {
    saved = Locale.getDefault();
    Locale.setDefault(Locale.forLanguageTag("tr-TR"));
    assertThat("I".toLowerCase()).isEqualTo("\u0131"); // the trap is armed
  }

  @AfterAll
  static void restoreLocale() {
    Locale.setDefault(saved);
  }

  @ParameterizedTest
  @ValueSource(strings = {"arrays", "french", "structures", "unicode", "values", "weird"})
  void officialVectorsAreUnchanged(String name) throws Exception {
    byte[] input = Rfc8785ConformanceTest.resource("input/" + name + ".json");
    byte[] expected = Rfc8785ConformanceTest.resource("output/" + name + ".json");
    Canonicalizer jcs = Canonicalizer.defaults();
    assertThat(jcs.canonicalize(input)).isEqualTo(expected);
    assertThat(jcs.canonicalize(MAPPER.readTree(input))).isEqualTo(expected);
  }

  @Test
  void dottedAndDotlessIKeysSortByCodeUnit() {
    String json = "{\"\u0131\":3,\"i\":2,\"\u0130\":4,\"I\":1,\"TITLE\":5,\"title\":6}";
    assertThat(Canonicalizer.defaults().canonicalString(json))
        .isEqualTo("{\"I\":1,\"TITLE\":5,\"i\":2,\"title\":6,\"\u0130\":4,\"\u0131\":3}");
  }

  @Test
  void exponentsAreWrittenWithLowercaseE() {
    assertThat(Canonicalizer.defaults().canonicalString("[1E21,1E-7,2.5E+3,-1.5E300,1e-400]"))
        .isEqualTo("[1e+21,1e-7,2500,-1.5e+300,0]");
  }

  @Test
  void fingerprintIsUnchanged() throws Exception {
    byte[] canonical =
        "{\"arguments\":{\"I\":1,\"i\":1e+21},\"operation\":\"INIT_item\"}"
            .getBytes(StandardCharsets.UTF_8);
    String hex = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical));
    Fingerprint f = Canonicalizer.defaults().fingerprint("INIT_item", "{\"i\":1E21,\"I\":1}");
    assertThat(f.toString()).isEqualTo("jcs-sha256:" + hex);
    assertThat(Fingerprint.parse(f.toString())).isEqualTo(f);
  }

  @Test
  void rejectionMessagesUseAsciiHex() {
    CanonicalizationException e = catchThrowable("[\"\\udbff\"]");
    assertThat(e.problem()).isEqualTo(Problem.LONE_SURROGATE);
    assertThat(e.getMessage()).contains("U+DBFF").startsWith("LONE_SURROGATE: ");
  }

  private static CanonicalizationException catchThrowable(String json) {
    try {
      Canonicalizer.defaults().canonicalize(json);
    } catch (CanonicalizationException e) {
      return e;
    }
    throw new AssertionError("expected a CanonicalizationException");
  }
}
