package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.onceonly.CanonicalizationException.Problem;
import dev.onceonly.internal.EcmaNumbers;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** Properties of the canonical form over random JSON values and random text. */
class CanonicalizerProperties {
  private static final Canonicalizer JCS = Canonicalizer.defaults();

  /** Subnormals spelled out in full take over 1,000 digits, Jackson's default limit. */
  private static final ObjectMapper MAPPER =
      new ObjectMapper(
          JsonFactory.builder()
              .streamReadConstraints(
                  StreamReadConstraints.builder().maxNumberLength(100_000).build())
              .build());

  private static final BigDecimal ONE_MILLIONTH = new BigDecimal("1e-6");
  private static final BigDecimal TEN_POW_21 = new BigDecimal("1e21");

  @Provide
  Arbitrary<JsonNode> trees() {
    return JsonArbitraries.trees(4);
  }

  @Provide
  Arbitrary<Double> finiteDoubles() {
    return JsonArbitraries.finiteDoubles();
  }

  @Property
  void canonicalFormIsIdempotent(@ForAll("trees") JsonNode tree, @ForAll long seed) {
    byte[] once = JCS.canonicalize(JsonSpeller.spell(tree, seed));
    assertThat(JCS.canonicalize(once)).isEqualTo(once);
  }

  @Property
  void memberOrderWhitespaceAndSpellingNeverMatter(
      @ForAll("trees") JsonNode tree, @ForAll long seedA, @ForAll long seedB) {
    String a = JsonSpeller.spell(tree, seedA);
    String b = JsonSpeller.spell(tree, seedB);
    assertThat(JCS.canonicalize(a)).isEqualTo(JCS.canonicalize(b));
    assertThat(JCS.fingerprint("op", a)).isEqualTo(JCS.fingerprint("op", b));
  }

  @Property
  void textAndTreeInputsAgree(@ForAll("trees") JsonNode tree, @ForAll long seed)
      throws IOException {
    String text = JsonSpeller.spell(tree, seed);
    byte[] expected = JCS.canonicalize(tree);
    assertThat(JCS.canonicalize(text)).isEqualTo(expected);
    assertThat(JCS.canonicalize(text.getBytes(StandardCharsets.UTF_8))).isEqualTo(expected);
    assertThat(JCS.canonicalize(MAPPER.readTree(text))).isEqualTo(expected);
    assertThat(JCS.fingerprint("op", text)).isEqualTo(JCS.fingerprint("op", tree));
  }

  @Property
  void finiteDoublesRoundTrip(@ForAll("finiteDoubles") double value) {
    String text = EcmaNumbers.toString(value);
    assertThat(Double.parseDouble(text)).isEqualTo(value == 0 ? 0.0 : value); // -0 prints as 0
    String json = "[" + new BigDecimal(value) + "]";
    assertThat(JCS.canonicalString(json)).isEqualTo("[" + text + "]");
    assertThat(JCS.canonicalString(JsonNodeFactory.instance.numberNode(value))).isEqualTo(text);
  }

  /** Number text is read exactly as the JDK reads it, halfway cases included. */
  @Property
  void numberTextIsReadAsDoubleParseDoubleReadsIt(@ForAll("numberTexts") String text) {
    double expected = Double.parseDouble(text);
    if (Double.isFinite(expected)) {
      assertThat(JCS.canonicalString("[" + text + "]"))
          .isEqualTo("[" + EcmaNumbers.toString(expected) + "]");
    } else {
      assertThatThrownBy(() -> JCS.canonicalize(text))
          .isInstanceOfSatisfying(
              CanonicalizationException.class,
              e -> assertThat(e.problem()).isEqualTo(Problem.NUMBER_OUT_OF_RANGE));
    }
  }

  /**
   * The hardest inputs for a decimal-to-double parser: the exact midpoint between two adjacent
   * doubles (ties round to even), and that midpoint nudged up or down in its last digit.
   */
  @Provide
  Arbitrary<String> numberTexts() {
    Arbitrary<String> midpoints =
        Combinators.combine(finiteDoubles(), Arbitraries.of(-1, 0, 1))
            .as(CanonicalizerProperties::nearMidpoint);
    Arbitrary<String> digits =
        Combinators.combine(
                Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(40),
                Arbitraries.integers().between(-400, 400))
            .as((d, e) -> "1" + d + "e" + e);
    Arbitrary<String> extremes =
        Arbitraries.of(
            "1e99999999999", "-1e99999999999", "1e-99999999999", "2.4703282292062328e-324");
    return Arbitraries.oneOf(midpoints, digits, extremes);
  }

  private static String nearMidpoint(double value, int nudge) {
    double magnitude = Math.min(Math.abs(value), Math.nextDown(Double.MAX_VALUE));
    BigDecimal low = new BigDecimal(magnitude);
    BigDecimal high = new BigDecimal(Math.nextUp(magnitude));
    BigDecimal mid = low.add(high).divide(BigDecimal.valueOf(2));
    BigDecimal ulp = BigDecimal.ONE.movePointLeft(mid.scale());
    return mid.add(ulp.multiply(BigDecimal.valueOf(nudge))).toString();
  }

  /** ECMA-262 section 7.1.12.1 step 5: as few significant digits as round-trip. */
  @Property
  void finiteDoublesUseTheFewestDigits(@ForAll("finiteDoubles") double value) {
    double magnitude = Math.abs(value);
    BigDecimal printed = new BigDecimal(EcmaNumbers.toString(magnitude));
    int digits = printed.stripTrailingZeros().precision();
    for (RoundingMode mode : List.of(RoundingMode.FLOOR, RoundingMode.CEILING)) {
      if (digits > 1) {
        BigDecimal shorter = new BigDecimal(magnitude).round(new MathContext(digits - 1, mode));
        assertThat(Double.parseDouble(shorter.toString())).isNotEqualTo(magnitude);
      }
    }
  }

  /** ECMA-262 section 7.1.12.1 steps 7 to 10: exponent notation outside [1e-6, 1e21). */
  @Property
  void exponentNotationOnlyForVerySmallOrLargeMagnitudes(@ForAll("finiteDoubles") double value) {
    String text = EcmaNumbers.toString(Math.abs(value));
    BigDecimal printed = new BigDecimal(text);
    boolean plain =
        printed.signum() == 0
            || (printed.compareTo(ONE_MILLIONTH) >= 0 && printed.compareTo(TEN_POW_21) < 0);
    assertThat(text.contains("e")).isEqualTo(!plain);
    assertThat(text).doesNotContain("E").doesNotStartWith("+");
  }

  @Property
  void integersAreWrittenInDecimal(@ForAll int i, @ForAll long l) {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    assertThat(JCS.canonicalString(nodes.numberNode(i))).isEqualTo(Integer.toString(i));
    assertThat(JCS.canonicalString(Integer.toString(i))).isEqualTo(Integer.toString(i));
    long exact = l >> 11; // within 2^53, where every integer is a double
    assertThat(JCS.canonicalString(nodes.numberNode(exact))).isEqualTo(Long.toString(exact));
    assertThat(JCS.canonicalString(Long.toString(exact))).isEqualTo(Long.toString(exact));
  }

  /** RFC 8785 section 3.2.2.2, written out independently: escape only what JSON requires. */
  @Property
  void stringsAreWrittenWithMinimalEscapes(@ForAll("validStrings") String s) {
    StringBuilder expected = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> expected.append("\\\"");
        case '\\' -> expected.append("\\\\");
        case '\b' -> expected.append("\\b");
        case '\f' -> expected.append("\\f");
        case '\n' -> expected.append("\\n");
        case '\r' -> expected.append("\\r");
        case '\t' -> expected.append("\\t");
        default -> {
          if (c < 0x20) {
            expected.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            expected.append(c);
          }
        }
      }
    }
    byte[] utf8 = expected.append('"').toString().getBytes(StandardCharsets.UTF_8);
    assertThat(JCS.canonicalize(JsonNodeFactory.instance.textNode(s))).isEqualTo(utf8);
    assertThat(JCS.canonicalize(JsonNodeFactory.instance.arrayNode().add(s)))
        .isEqualTo(("[" + expected + "]").getBytes(StandardCharsets.UTF_8));
  }

  @Provide
  Arbitrary<String> validStrings() {
    return JsonArbitraries.strings(40);
  }

  @Provide
  Arbitrary<String> jsonishText() {
    Arbitrary<String> tokens =
        Arbitraries.of(
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"",
            "\"a\"",
            "\\",
            "\\u",
            "\\ud800",
            "\\udc00",
            "\\ud83d\\ude00",
            "\\n",
            "1",
            "-0",
            "1.5E3",
            "1e400",
            "0x1",
            "true",
            "null",
            "NaN",
            " ",
            "\n",
            "\uD800",
            "\uDC00",
            "\uD83D\uDE00",
            "\u00e9",
            "\u0000");
    Arbitrary<String> anyChar = Arbitraries.chars().all().map(String::valueOf);
    return Arbitraries.oneOf(tokens, anyChar)
        .list()
        .ofMaxSize(30)
        .map(parts -> parts.stream().collect(Collectors.joining()));
  }

  @Property
  void anyTextIsCanonicalOrRefusedWithAProblem(@ForAll("jsonishText") String text) {
    acceptedOrRefused(() -> JCS.canonicalize(text));
    acceptedOrRefused(() -> JCS.canonicalize(text.getBytes(StandardCharsets.UTF_8)));
    acceptedOrRefused(() -> JCS.fingerprint("op", text).hex().getBytes(StandardCharsets.US_ASCII));
  }

  @Property
  void anyBytesAreCanonicalOrRefusedWithAProblem(@ForAll @Size(max = 40) byte[] bytes) {
    acceptedOrRefused(() -> JCS.canonicalize(bytes));
  }

  @Property
  void damagedJsonIsCanonicalOrRefusedWithAProblem(
      @ForAll("trees") JsonNode tree,
      @ForAll long seed,
      @ForAll("jsonishText") String damage,
      @ForAll int where) {
    String text = JsonSpeller.spell(tree, seed);
    int at = Math.floorMod(where, text.length() + 1);
    int cut = Math.min(text.length(), at + Math.floorMod(where >> 8, 4));
    acceptedOrRefused(() -> JCS.canonicalize(text.substring(0, at) + damage + text.substring(cut)));
  }

  /** Accepted output must itself be canonical; anything else must be a typed refusal. */
  private static void acceptedOrRefused(Supplier<byte[]> call) {
    byte[] out;
    try {
      out = call.get();
    } catch (CanonicalizationException e) {
      assertThat(e.problem()).isNotNull();
      return;
    }
    if (out.length > 0 && out.length != 64) { // 64 bytes: a fingerprint's hex, not JSON
      assertThat(JCS.canonicalize(out)).isEqualTo(out);
    }
  }
}
