package dev.onceonly;

import static dev.onceonly.Trials.forAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.onceonly.CanonicalizationException.Problem;
import dev.onceonly.Trials.Trial;
import dev.onceonly.internal.jcs.EcmaNumbers;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Properties of the canonical form over random JSON values and random text: each test runs its
 * property over 1000 seeded trials (see {@link Trials} to choose the seed or rerun one trial).
 */
class CanonicalizerProperties {
  private static final int TRIES = 1000;
  private static final int DEPTH = 4;
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

  @Test
  void canonicalFormIsIdempotent() {
    forAll(
        TRIES,
        t -> {
          JsonNode tree = t.input("tree", t.json().tree(DEPTH));
          long seed = t.input("spelling", t.random().nextLong());
          byte[] once = JCS.canonicalize(JsonSpeller.spell(tree, seed));
          assertSameBytes(JCS.canonicalize(once), once);
        });
  }

  @Test
  void memberOrderWhitespaceAndSpellingNeverMatter() {
    forAll(
        TRIES,
        t -> {
          JsonNode tree = t.input("tree", t.json().tree(DEPTH));
          String a = t.input("a", JsonSpeller.spell(tree, t.random().nextLong()));
          String b = t.input("b", JsonSpeller.spell(tree, t.random().nextLong()));
          assertSameBytes(JCS.canonicalize(a), JCS.canonicalize(b));
          assertThat(JCS.fingerprint("op", a)).isEqualTo(JCS.fingerprint("op", b));
        });
  }

  @Test
  void textAndTreeInputsAgree() {
    forAll(
        TRIES,
        t -> {
          JsonNode tree = t.input("tree", t.json().tree(DEPTH));
          String text = t.input("text", JsonSpeller.spell(tree, t.random().nextLong()));
          byte[] expected = JCS.canonicalize(tree);
          assertSameBytes(JCS.canonicalize(text), expected);
          assertSameBytes(JCS.canonicalize(text.getBytes(StandardCharsets.UTF_8)), expected);
          assertSameBytes(JCS.canonicalize(MAPPER.readTree(text)), expected);
          assertThat(JCS.fingerprint("op", text)).isEqualTo(JCS.fingerprint("op", tree));
        });
  }

  @Test
  void finiteDoublesRoundTrip() {
    forAll(
        TRIES,
        t -> {
          double value = t.input("value", t.json().finiteDouble());
          String text = EcmaNumbers.toString(value);
          assertThat(Double.parseDouble(text))
              .isEqualTo(value == 0 ? 0.0 : value); // -0 prints as 0
          String json = "[" + new BigDecimal(value) + "]";
          assertThat(JCS.canonicalString(json)).isEqualTo("[" + text + "]");
          assertThat(JCS.canonicalString(JsonNodeFactory.instance.numberNode(value)))
              .isEqualTo(text);
        });
  }

  /**
   * Number text is read exactly as the JDK reads it: midpoints between adjacent doubles (ties round
   * to even) and their neighbours, long digit strings, and text that under- or overflows.
   */
  @Test
  void numberTextIsReadAsDoubleParseDoubleReadsIt() {
    forAll(
        TRIES,
        t -> {
          String text = t.input("text", t.json().numberText());
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
        });
  }

  /** ECMA-262 section 7.1.12.1 step 5: as few significant digits as round-trip. */
  @Test
  void finiteDoublesUseTheFewestDigits() {
    forAll(
        TRIES,
        t -> {
          double magnitude = Math.abs(t.input("value", t.json().finiteDouble()));
          BigDecimal printed = new BigDecimal(EcmaNumbers.toString(magnitude));
          int digits = printed.stripTrailingZeros().precision();
          for (RoundingMode mode : List.of(RoundingMode.FLOOR, RoundingMode.CEILING)) {
            if (digits > 1) {
              BigDecimal shorter =
                  new BigDecimal(magnitude).round(new MathContext(digits - 1, mode));
              assertThat(Double.parseDouble(shorter.toString()))
                  .as("%s rounded %s to %d digits", printed, mode, digits - 1)
                  .isNotEqualTo(magnitude);
            }
          }
        });
  }

  /** ECMA-262 section 7.1.12.1 steps 7 to 10: exponent notation outside [1e-6, 1e21). */
  @Test
  void exponentNotationOnlyForVerySmallOrLargeMagnitudes() {
    forAll(
        TRIES,
        t -> {
          String text = EcmaNumbers.toString(Math.abs(t.input("value", t.json().finiteDouble())));
          BigDecimal printed = new BigDecimal(text);
          boolean plain =
              printed.signum() == 0
                  || (printed.compareTo(ONE_MILLIONTH) >= 0 && printed.compareTo(TEN_POW_21) < 0);
          assertThat(text.contains("e")).as(text).isEqualTo(!plain);
          assertThat(text).doesNotContain("E").doesNotStartWith("+");
        });
  }

  @Test
  void integersAreWrittenInDecimal() {
    forAll(
        TRIES,
        t -> {
          JsonNodeFactory nodes = JsonNodeFactory.instance;
          int i = t.input("int", t.json().anInt());
          assertThat(JCS.canonicalString(nodes.numberNode(i))).isEqualTo(Integer.toString(i));
          assertThat(JCS.canonicalString(Integer.toString(i))).isEqualTo(Integer.toString(i));
          long exact = t.input("long", exactLong(t));
          assertThat(JCS.canonicalString(nodes.numberNode(exact))).isEqualTo(Long.toString(exact));
          assertThat(JCS.canonicalString(Long.toString(exact))).isEqualTo(Long.toString(exact));
        });
  }

  /** A long within 2^53 of zero, where every integer is a double, often near that bound. */
  private static long exactLong(Trial t) {
    if (t.random().nextInt(4) == 0) {
      long nearBound = (1L << 53) - t.random().nextInt(3);
      return t.random().nextBoolean() ? nearBound : -nearBound;
    }
    return t.json().aLong() >> 11;
  }

  /** RFC 8785 section 3.2.2.2, written out independently: escape only what JSON requires. */
  @Test
  void stringsAreWrittenWithMinimalEscapes() {
    forAll(
        TRIES,
        t -> {
          String s = t.input("string", t.json().string(40));
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
          assertSameBytes(JCS.canonicalize(JsonNodeFactory.instance.textNode(s)), utf8);
          assertSameBytes(
              JCS.canonicalize(JsonNodeFactory.instance.arrayNode().add(s)),
              ("[" + expected + "]").getBytes(StandardCharsets.UTF_8));
        });
  }

  @Test
  void anyTextIsCanonicalOrRefusedWithAProblem() {
    forAll(
        TRIES,
        t -> {
          String text = t.input("text", t.json().jsonishText());
          acceptedOrRefused(() -> JCS.canonicalize(text));
          acceptedOrRefused(() -> JCS.canonicalize(text.getBytes(StandardCharsets.UTF_8)));
          acceptedOrRefused(
              () -> JCS.fingerprint("op", text).hex().getBytes(StandardCharsets.US_ASCII));
        });
  }

  @Test
  void anyBytesAreCanonicalOrRefusedWithAProblem() {
    forAll(
        TRIES,
        t -> {
          byte[] bytes = t.input("bytes", t.json().bytes(40));
          acceptedOrRefused(() -> JCS.canonicalize(bytes));
        });
  }

  @Test
  void damagedJsonIsCanonicalOrRefusedWithAProblem() {
    forAll(
        TRIES,
        t -> {
          JsonNode tree = t.json().tree(DEPTH);
          String text = JsonSpeller.spell(tree, t.random().nextLong());
          String damage = t.json().jsonishText();
          int where = t.random().nextInt();
          int at = Math.floorMod(where, text.length() + 1);
          int cut = Math.min(text.length(), at + Math.floorMod(where >> 8, 4));
          String damaged = t.input("damaged", text.substring(0, at) + damage + text.substring(cut));
          acceptedOrRefused(() -> JCS.canonicalize(damaged));
        });
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
      assertSameBytes(JCS.canonicalize(out), out);
    }
  }

  /** Byte-for-byte equality, shown as text where they first differ if they do not match. */
  private static void assertSameBytes(byte[] actual, byte[] expected) {
    int at = Arrays.mismatch(actual, expected);
    if (at >= 0) {
      throw new AssertionError(
          String.format(
              Locale.ROOT,
              "bytes differ from byte %d on%n expected: %s%n  but was: %s",
              at,
              Trials.show(new String(expected, StandardCharsets.UTF_8)),
              Trials.show(new String(actual, StandardCharsets.UTF_8))));
    }
  }
}
