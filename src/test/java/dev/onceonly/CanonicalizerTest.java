package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.onceonly.CanonicalizationException.Problem;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CanonicalizerTest {
  private static final Canonicalizer JCS = Canonicalizer.defaults();
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Runs the call, expects a CanonicalizationException of that problem, returns its position. */
  private static AbstractStringAssert<?> refused(Problem problem, Supplier<?> call) {
    CanonicalizationException e = catchCanonicalization(call);
    assertThat(e.problem()).as(e.getMessage()).isEqualTo(problem);
    assertThat(e.getMessage()).startsWith(problem + ": ");
    return assertThat(e.position()).as(e.getMessage());
  }

  private static CanonicalizationException catchCanonicalization(Supplier<?> call) {
    try {
      call.get();
    } catch (CanonicalizationException e) {
      return e;
    }
    throw new AssertionError("expected a CanonicalizationException");
  }

  private static AbstractStringAssert<?> refused(Problem problem, String json) {
    return refused(problem, () -> JCS.canonicalize(json));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static JsonNode tree(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static String nested(int depth) {
    return "[".repeat(depth) + "]".repeat(depth);
  }

  @Nested
  class Empty {
    @ParameterizedTest
    @ValueSource(strings = {"", " ", "   \n\t\r "})
    void emptyOrWhitespaceTextHasNoValue(String json) {
      refused(Problem.EMPTY, json).isEmpty();
      refused(Problem.EMPTY, () -> JCS.canonicalize(utf8(json))).isEmpty();
    }
  }

  @Nested
  class Syntax {
    @ParameterizedTest
    @ValueSource(strings = {"NaN", "Infinity", "-Infinity", "[NaN]", "{\"a\":-Infinity}"})
    void nonNumericLiteralsAreNotJson(String json) {
      refused(Problem.SYNTAX, json).startsWith("line 1, column ");
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "tru", "nul", "[1,]", "{\"a\"}", "{a:1}", "'a'", "[01]", "+1", ".5", "1.", "/**/1"
        })
    void badTokensAreRefused(String json) {
      refused(Problem.SYNTAX, json).startsWith("line 1, column ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"[1", "{\"a\":1", "\"abc", "[{}", "{\"a\":", "[\"\\u12"})
    void unclosedValuesAreRefused(String json) {
      refused(Problem.SYNTAX, json).startsWith("line 1, column ");
    }

    @Test
    void unescapedControlCharacterIsRefused() {
      refused(Problem.SYNTAX, "\"a\u0001\"").startsWith("line 1, column 3");
    }

    @Test
    void byteOrderMarkIsNotSkipped() {
      refused(
              Problem.SYNTAX,
              () -> JCS.canonicalize(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '1'}))
          .startsWith("line 1, column 1 ");
    }
  }

  @Nested
  class TrailingData {
    @Test
    void secondValueIsTrailingData() {
      refused(Problem.TRAILING_DATA, "1 2").startsWith("line 1, column 3 ");
      refused(Problem.TRAILING_DATA, "[] []").startsWith("line 1, column 4 ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{} x", "{}x", "[1]]", "{} //", "\"a\" ,"})
    void anythingAfterTheValueIsTrailingDataEvenIfNotJson(String json) {
      refused(Problem.TRAILING_DATA, json).startsWith("line 1, column ");
    }

    @Test
    void trailingWhitespaceIsAccepted() {
      assertThat(JCS.canonicalString(" {} \n\t ")).isEqualTo("{}");
    }
  }

  @Nested
  class DuplicateName {
    @Test
    void repeatedNameIsRefusedAtItsSecondOccurrence() {
      refused(Problem.DUPLICATE_NAME, "{\"a\":1,\"a\":2}").startsWith("line 1, column 8 ");
    }

    @Test
    void repeatedNameInNestedObjectIsRefusedWithItsLine() {
      refused(Problem.DUPLICATE_NAME, "{\"x\":{\"b\":1,\n  \"b\":2}}")
          .startsWith("line 2, column 3 ");
    }

    @Test
    void namesAreComparedAfterUnescaping() {
      refused(Problem.DUPLICATE_NAME, "{\"a\":1,\"\\u0061\":2}").startsWith("line 1, column 8 ");
      refused(Problem.DUPLICATE_NAME, "{\"\\u00e9\":1,\"\u00e9\":2}")
          .startsWith("line 1, column 13 ");
    }

    @Test
    void sameNameInSiblingObjectsIsAccepted() {
      assertThat(JCS.canonicalString("[{\"a\":1},{\"a\":2}]")).isEqualTo("[{\"a\":1},{\"a\":2}]");
    }
  }

  @Nested
  class LoneSurrogate {
    @ParameterizedTest
    @ValueSource(
        strings = {
          "\"\\ud800\"",
          "[\"\\udc00\"]",
          "{\"k\":\"\\ud800a\"}",
          "{\"k\":\"\\udc00\\ud800\"}",
          "{\"k\":\"x\\ud83d\"}"
        })
    void escapedLoneSurrogateInValueIsRefused(String json) {
      refused(Problem.LONE_SURROGATE, json).startsWith("line 1, column ");
      refused(Problem.LONE_SURROGATE, () -> JCS.canonicalize(utf8(json))).startsWith("line 1");
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "{\"\\ud800\":1}",
          "{\"a\\udc00\":1}",
          "{\"\\ud800\\u0041\":1}",
          "{\"\\ud800\\ud800\":1}",
          "{\"\\ud800\\n\":1}",
          "{\"ok\":1,\"\\uDBFFz\":2}"
        })
    void escapedLoneSurrogateInNameIsRefused(String json) {
      refused(Problem.LONE_SURROGATE, json).startsWith("line 1, column ");
    }

    @Test
    void rawLoneSurrogateInTextIsRefused() {
      refused(Problem.LONE_SURROGATE, "{\"a\uD800\":1}").startsWith("line 1, column 2 ");
      refused(Problem.LONE_SURROGATE, "[1,\"\uDC00\"]").startsWith("line 1, column 4 ");
    }

    @Test
    void escapedBackslashBeforeSurrogateLookalikeIsNotAnEscape() {
      assertThat(JCS.canonicalString("{\"\\\\ud800\":1}")).isEqualTo("{\"\\\\ud800\":1}");
    }

    @Test
    void truncatedNameAfterHighSurrogateIsSyntax() {
      refused(Problem.SYNTAX, "{\"\\ud800").startsWith("line 1, column ");
    }

    @Test
    void pairedSurrogatesAreAccepted() {
      assertThat(JCS.canonicalString("{\"\\ud83d\\ude00\":\"\\ud83d\\ude00\"}"))
          .isEqualTo("{\"\uD83D\uDE00\":\"\uD83D\uDE00\"}");
    }

    @Test
    void loneSurrogateInTreeValueIsRefusedWithPointer() {
      ObjectNode root = NODES.objectNode();
      root.putArray("a").add("x\uD800");
      refused(Problem.LONE_SURROGATE, () -> JCS.canonicalize(root)).isEqualTo("/a/0");
    }

    @Test
    void loneSurrogateInTreeNameIsRefusedWithEscapedPointer() {
      ObjectNode root = NODES.objectNode();
      root.putObject("a/b").put("~\uDC00", 1);
      refused(Problem.LONE_SURROGATE, () -> JCS.canonicalize(root)).isEqualTo("/a~1b/~0\uDC00");
    }

    @Test
    void loneSurrogateInOperationIsRefusedForTextAndTree() {
      refused(Problem.LONE_SURROGATE, () -> JCS.fingerprint("op\uD800", "{}"))
          .isEqualTo("operation");
      refused(Problem.LONE_SURROGATE, () -> JCS.fingerprint("op\uD800", NODES.objectNode()))
          .isEqualTo("operation");
    }

    @Test
    void loneSurrogateInTreeArgumentsIsPointedInsideTheIntent() {
      ArrayNode arguments = NODES.arrayNode().add(1).add("\uDC00");
      refused(Problem.LONE_SURROGATE, () -> JCS.fingerprint("op", arguments))
          .isEqualTo("/arguments/1");
    }
  }

  @Nested
  class InvalidUtf8 {
    private AbstractStringAssert<?> refusedBytes(String hex) {
      return refused(Problem.INVALID_UTF8, () -> JCS.canonicalize(HexFormat.of().parseHex(hex)));
    }

    @Test
    void loneContinuationByte() {
      refusedBytes("5b31 2c80 5d".replace(" ", "")).isEqualTo("byte offset 3"); // [1,\x80]
    }

    @Test
    void overlongEncoding() {
      refusedBytes("22 c0af 22".replace(" ", "")).isEqualTo("byte offset 1"); // "/" in 2 bytes
      refusedBytes("22 e080af 22".replace(" ", "")).isEqualTo("byte offset 1"); // "/" in 3 bytes
    }

    @Test
    void sequenceTruncatedAtEnd() {
      refusedBytes("5b 22 e282".replace(" ", "")).isEqualTo("byte offset 2"); // € cut short
    }

    @Test
    void sequenceCutShortInTheMiddle() {
      refusedBytes("22 e282 22".replace(" ", "")).isEqualTo("byte offset 1");
    }

    @Test
    void cesuEncodedSurrogatePair() {
      refusedBytes("22 eda0bd edb880 22".replace(" ", "")).isEqualTo("byte offset 1"); // U+1F600
    }

    @Test
    void codePointBeyondUnicode() {
      refusedBytes("22 f4908080 22".replace(" ", "")).isEqualTo("byte offset 1"); // U+110000
    }

    @Test
    void wellFormedMultiByteInputIsAccepted() {
      byte[] input = utf8("[\"\u20AC\", \"\uD83D\uDE00\"]");
      assertThat(JCS.canonicalize(input)).isEqualTo(utf8("[\"\u20AC\",\"\uD83D\uDE00\"]"));
    }
  }

  @Nested
  class NumberOutOfRange {
    @ParameterizedTest
    @ValueSource(strings = {"1e400", "-1e400", "[1.7976931348623159e308]", "{\"n\":2E+308}"})
    void beyondDoubleRangeIsRefused(String json) {
      refused(Problem.NUMBER_OUT_OF_RANGE, json).startsWith("line 1, column ");
    }

    @Test
    void integerOf400DigitsIsRefused() {
      refused(Problem.NUMBER_OUT_OF_RANGE, "[" + "9".repeat(400) + "]")
          .startsWith("line 1, column 2 ");
      refused(Problem.NUMBER_OUT_OF_RANGE, "-" + "1".repeat(400)).startsWith("line 1, column 1 ");
    }

    @Test
    void largestDoubleAndUnderflowAreAccepted() {
      assertThat(JCS.canonicalString("[1.7976931348623157e308,1e-400]"))
          .isEqualTo("[1.7976931348623157e+308,0]");
    }

    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void nonFiniteTreeDoubleIsRefusedWithPointer(double value) {
      ObjectNode root = NODES.objectNode();
      root.putArray("a").add(1).add(DoubleNode.valueOf(value));
      refused(Problem.NUMBER_OUT_OF_RANGE, () -> JCS.canonicalize(root)).isEqualTo("/a/1");
    }

    @Test
    void hugeTreeNumbersAreRefused() {
      BigIntegerNode big = BigIntegerNode.valueOf(new BigInteger("9".repeat(400)));
      DecimalNode decimal = DecimalNode.valueOf(new BigDecimal("-1e400"));
      refused(Problem.NUMBER_OUT_OF_RANGE, () -> JCS.canonicalize(NODES.arrayNode().add(big)))
          .isEqualTo("/0");
      refused(Problem.NUMBER_OUT_OF_RANGE, () -> JCS.canonicalize(decimal)).isEmpty();
    }
  }

  @Nested
  class TooLarge {
    private final Canonicalizer small = Canonicalizer.builder().maxInputBytes(8).build();

    @Test
    void inputOverTheLimitIsRefused() {
      assertThat(small.canonicalString("[1,2,3]")).isEqualTo("[1,2,3]");
      refused(Problem.TOO_LARGE, () -> small.canonicalize("[1,2,3,4]")).isEmpty();
      refused(Problem.TOO_LARGE, () -> small.canonicalize(utf8("[1,2,3,4]"))).isEmpty();
    }

    @Test
    void limitCountsUtf8BytesNotCharacters() {
      String fiveChars = "\"\u00e9\u00e9\u00e9\""; // 5 chars, 8 bytes
      assertThat(small.canonicalize(fiveChars)).hasSize(8);
      refused(Problem.TOO_LARGE, () -> small.canonicalize("\"\u00e9\u00e9\u00e9\u00e9\""))
          .isEmpty();
    }

    @Test
    void canonicalOutputOfTreeOverTheLimitIsRefused() {
      refused(Problem.TOO_LARGE, () -> small.canonicalize(tree("[1,2,3,4]"))).isEmpty();
    }

    @Test
    void intentLimitAppliesToTheArguments() {
      assertThat(small.fingerprint("operation", "[1,2,3]"))
          .isEqualTo(small.fingerprint("operation", tree("[1,2,3]")));
      refused(Problem.TOO_LARGE, () -> small.fingerprint("op", "[1,2,3,4]")).isEmpty();
      refused(Problem.TOO_LARGE, () -> small.fingerprint("op", tree("[1,2,3,4]"))).isEmpty();
    }
  }

  @Nested
  class TooDeep {
    private final Canonicalizer shallow = Canonicalizer.builder().maxDepth(3).build();

    @Test
    void nestingOverTheConfiguredLimitIsRefused() {
      assertThat(shallow.canonicalString("[{\"a\":[1]}]")).isEqualTo("[{\"a\":[1]}]");
      refused(Problem.TOO_DEEP, () -> shallow.canonicalize("[{\"a\":[{}]}]"))
          .startsWith("line 1, column 8 ");
      refused(Problem.TOO_DEEP, () -> shallow.canonicalize(tree("[{\"a\":[{}]}]")))
          .isEqualTo("/0/a/0");
    }

    @Test
    void defaultAcceptsDepth64AndRefuses65() {
      assertThat(Canonicalizer.defaults().maxDepth()).isEqualTo(64);
      assertThat(JCS.canonicalString(nested(64))).isEqualTo(nested(64));
      assertThat(JCS.canonicalString(tree(nested(64)))).isEqualTo(nested(64));
      refused(Problem.TOO_DEEP, nested(65)).startsWith("line 1, column 65 ");
      refused(Problem.TOO_DEEP, () -> JCS.canonicalize(utf8(nested(65)))).startsWith("line 1");
      refused(Problem.TOO_DEEP, () -> JCS.canonicalize(tree(nested(65))))
          .isEqualTo("/0".repeat(64));
    }

    @Test
    void veryDeepTextIsRefusedAsTooDeep() {
      refused(Problem.TOO_DEEP, nested(5000)).startsWith("line 1, column 65 ");
    }

    @Test
    void intentDepthCountsFromTheArguments() {
      assertThat(JCS.fingerprint("op", nested(64)))
          .isEqualTo(JCS.fingerprint("op", tree(nested(64))));
      refused(Problem.TOO_DEEP, () -> JCS.fingerprint("op", nested(65))).startsWith("line 1");
      refused(Problem.TOO_DEEP, () -> JCS.fingerprint("op", tree(nested(65))))
          .isEqualTo("/arguments" + "/0".repeat(64));
    }
  }

  @Nested
  class StringTooLong {
    private final Canonicalizer shortStrings = Canonicalizer.builder().maxStringLength(5).build();

    @Test
    void valueOverTheLimitIsRefused() {
      assertThat(shortStrings.canonicalString("[\"abcde\"]")).isEqualTo("[\"abcde\"]");
      refused(Problem.STRING_TOO_LONG, () -> shortStrings.canonicalize("[\"abcdef\"]"))
          .startsWith("line 1, column 2 ");
      refused(Problem.STRING_TOO_LONG, () -> shortStrings.canonicalize(tree("[\"abcdef\"]")))
          .isEqualTo("/0");
    }

    @Test
    void nameOverTheLimitIsRefused() {
      refused(Problem.STRING_TOO_LONG, () -> shortStrings.canonicalize("{\"abcdef\":1}"))
          .startsWith("line 1, column 2 ");
      refused(Problem.STRING_TOO_LONG, () -> shortStrings.canonicalize(tree("{\"abcdef\":1}")))
          .isEqualTo("/abcdef");
    }

    @Test
    void lengthIsCountedInUtf16UnitsAfterUnescaping() {
      assertThat(shortStrings.canonicalString("\"\\u0041\\u0042\\u0043\\u0044\\u0045\""))
          .isEqualTo("\"ABCDE\"");
      refused(Problem.STRING_TOO_LONG, () -> shortStrings.canonicalize("\"abcd\uD83D\uDE00\""))
          .startsWith("line 1");
    }

    @Test
    void muchLongerStringIsStillStringTooLong() {
      refused(
              Problem.STRING_TOO_LONG,
              () -> shortStrings.canonicalize("\"" + "x".repeat(5000) + "\""))
          .startsWith("line 1");
    }

    @Test
    void defaultLimitIs65536ForValuesAndNames() {
      String atLimit = "x".repeat(65_536);
      assertThat(JCS.canonicalString("[\"" + atLimit + "\"]")).hasSize(65_540);
      assertThat(JCS.canonicalString("{\"" + atLimit + "\":1}")).hasSize(65_542);
      refused(Problem.STRING_TOO_LONG, "[\"" + atLimit + "y\"]").startsWith("line 1");
      refused(Problem.STRING_TOO_LONG, "{\"" + atLimit + "y\":1}").startsWith("line 1");
    }

    @Test
    void longOperationIsRefused() {
      refused(Problem.STRING_TOO_LONG, () -> shortStrings.fingerprint("abcdef", "{}"))
          .isEqualTo("operation");
    }
  }

  @Nested
  class UnsupportedValue {
    @Test
    void binaryNodeIsRefused() {
      ArrayNode root = NODES.arrayNode().add(BinaryNode.valueOf(new byte[] {1, 2}));
      refused(Problem.UNSUPPORTED_VALUE, () -> JCS.canonicalize(root)).isEqualTo("/0");
    }

    @Test
    void pojoNodeIsRefused() {
      ObjectNode root = NODES.objectNode();
      root.set("p", new POJONode(new Object()));
      refused(Problem.UNSUPPORTED_VALUE, () -> JCS.canonicalize(root)).isEqualTo("/p");
    }

    @Test
    void javaNullChildIsRefused() {
      List<JsonNode> elements = new ArrayList<>();
      elements.add(TextNode.valueOf("a"));
      elements.add(null);
      refused(Problem.UNSUPPORTED_VALUE, () -> JCS.canonicalize(new ArrayNode(NODES, elements)))
          .isEqualTo("/1");
      Map<String, JsonNode> members = new LinkedHashMap<>();
      members.put("m", null);
      refused(Problem.UNSUPPORTED_VALUE, () -> JCS.canonicalize(new ObjectNode(NODES, members)))
          .isEqualTo("/m");
    }

    @Test
    void missingNodeAtTheRootConcernsTheWholeInput() {
      refused(Problem.UNSUPPORTED_VALUE, () -> JCS.canonicalize(MissingNode.getInstance()))
          .isEmpty();
    }

    @Test
    void memberNamedEmptyStringHasItsOwnPointer() {
      ObjectNode root = NODES.objectNode();
      root.set("", BinaryNode.valueOf(new byte[0]));
      refused(Problem.UNSUPPORTED_VALUE, () -> JCS.canonicalize(root)).isEqualTo("/");
    }
  }

  @Nested
  class BuilderLimits {
    @Test
    void nonPositiveLimitsAreRefused() {
      assertThatThrownBy(() -> Canonicalizer.builder().maxDepth(0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("maxDepth must be > 0");
      assertThatThrownBy(() -> Canonicalizer.builder().maxInputBytes(-1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("maxInputBytes must be > 0");
      assertThatThrownBy(() -> Canonicalizer.builder().maxStringLength(0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("maxStringLength must be > 0");
    }

    @Test
    void limitsAreKeptAndDefaultsDocumented() {
      Canonicalizer c =
          Canonicalizer.builder().maxInputBytes(100).maxDepth(2).maxStringLength(7).build();
      assertThat(c.maxInputBytes()).isEqualTo(100);
      assertThat(c.maxDepth()).isEqualTo(2);
      assertThat(c.maxStringLength()).isEqualTo(7);
      assertThat(JCS.maxInputBytes()).isEqualTo(1024 * 1024);
      assertThat(JCS.maxStringLength()).isEqualTo(65_536);
    }

    @Test
    void nullInputsAreRefused() {
      assertThatThrownBy(() -> JCS.canonicalize((String) null))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> JCS.canonicalize((byte[]) null))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> JCS.canonicalize((JsonNode) null))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> JCS.fingerprint(null, "{}"))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> JCS.fingerprint("op", (String) null))
          .isInstanceOf(NullPointerException.class);
    }
  }

  @Nested
  class FingerprintRecord {
    private static final String HEX64 = "0123456789abcdef".repeat(4);

    @Test
    void rendersAndParsesAsProfileColonHex() {
      Fingerprint f = new Fingerprint("jcs-sha256", HEX64);
      assertThat(f.toString()).isEqualTo("jcs-sha256:" + HEX64);
      assertThat(Fingerprint.parse(f.toString())).isEqualTo(f);
    }

    @Test
    void comparesByValue() {
      Fingerprint a = new Fingerprint("jcs-sha256", HEX64);
      Fingerprint b = new Fingerprint(new String("jcs-sha256"), new String(HEX64));
      assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
      assertThat(a).isNotEqualTo(new Fingerprint("jcs-sha512", HEX64));
      assertThat(a).isNotEqualTo(new Fingerprint("jcs-sha256", HEX64.replace('0', '1')));
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "",
          "JCS",
          "-jcs",
          "jcs_sha256",
          "jcs sha256",
          "a123456789012345678901234567890123"
        })
    void badProfilesAreRefused(String profile) {
      assertThatThrownBy(() -> new Fingerprint(profile, HEX64))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("profile must match");
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "",
          "abc",
          "0123456789ABCDEF",
          "0123456789abcde",
          "0123456789abcdeg",
          " 0123456789abcdef"
        })
    void badDigestsAreRefused(String hex) {
      assertThatThrownBy(() -> new Fingerprint("jcs-sha256", hex))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("hex must be");
    }

    @Test
    void acceptsTheEdgesOfTheFormat() {
      String profile32 = "a" + "-0".repeat(15) + "z";
      assertThat(new Fingerprint(profile32, HEX64).profile()).hasSize(32);
      assertThat(new Fingerprint("0", "00".repeat(8)).hex()).hasSize(16);
      assertThat(new Fingerprint("a-", "ff".repeat(64)).hex()).hasSize(128);
      assertThatThrownBy(() -> new Fingerprint(profile32 + "a", HEX64))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> new Fingerprint("jcs", "ff".repeat(65)))
          .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nullsAreRefused() {
      assertThatThrownBy(() -> new Fingerprint(null, HEX64))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> new Fingerprint("jcs-sha256", null))
          .isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> Fingerprint.parse(null)).isInstanceOf(NullPointerException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jcs-sha256", "jcs-sha256" + "0123456789abcdef", ":0123456789abcdef"})
    void textWithoutProfileAndHexIsRefused(String text) {
      assertThatThrownBy(() -> Fingerprint.parse(text))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Nested
  class FingerprintValues {
    private static final String ARGUMENTS = "{\"muestras\":[10,20,30]}";

    @Test
    void isSha256OfTheCanonicalIntentDocument() throws Exception {
      byte[] expected =
          utf8("{\"arguments\":{\"muestras\":[10,20,30]},\"operation\":\"make_report\"}");
      String hex = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(expected));
      Fingerprint f = JCS.fingerprint("make_report", "{ \"muestras\" : [ 1e1, 20.0, 30 ] }");
      assertThat(f.profile()).isEqualTo(Fingerprint.JCS_SHA256).isEqualTo("jcs-sha256");
      assertThat(f.hex()).isEqualTo(hex);
    }

    @Test
    void textAndTreeGiveTheSameFingerprint() {
      assertThat(JCS.fingerprint("make_report", ARGUMENTS))
          .isEqualTo(JCS.fingerprint("make_report", tree(ARGUMENTS)));
      String odd = "{\"z\":\"\\u00e9\\n\",\"a\":[1.50,-0,1E21,{\"\uD83D\uDE00\":null}],\"m\":true}";
      assertThat(JCS.fingerprint("op", odd)).isEqualTo(JCS.fingerprint("op", tree(odd)));
    }

    @Test
    void operationIsEscapedLikeAnyJsonString() throws Exception {
      byte[] expected = utf8("{\"arguments\":null,\"operation\":\"a\\\"b\\\\c\\n\u00e9\"}");
      String hex = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(expected));
      assertThat(JCS.fingerprint("a\"b\\c\n\u00e9", "null").hex()).isEqualTo(hex);
      assertThat(JCS.fingerprint("a\"b\\c\n\u00e9", NODES.nullNode()).hex()).isEqualTo(hex);
    }

    @Test
    void otherOperationOrArgumentsGiveOtherFingerprints() {
      Fingerprint base = JCS.fingerprint("make_report", ARGUMENTS);
      assertThat(JCS.fingerprint("make_reports", ARGUMENTS)).isNotEqualTo(base);
      assertThat(JCS.fingerprint("make_report", "{\"muestras\":[10,20,31]}")).isNotEqualTo(base);
      assertThat(JCS.fingerprint("make_report", "{\"muestras\":[10,30,20]}")).isNotEqualTo(base);
      assertThat(JCS.fingerprint("make_report", "{\"muestras\":\"[10,20,30]\"}"))
          .isNotEqualTo(base);
    }

    @Test
    void concurrentCallsGiveTheSameFingerprintsAsOneThread() throws Exception {
      List<String> arguments = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        arguments.add("{\"n\":" + i + ",\"s\":\"" + "x".repeat(i) + "\"}");
      }
      List<Fingerprint> expected = arguments.stream().map(a -> JCS.fingerprint("op", a)).toList();
      ExecutorService pool = Executors.newFixedThreadPool(8);
      CountDownLatch start = new CountDownLatch(1);
      try {
        List<Future<List<Fingerprint>>> runs = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          runs.add(pool.submit(() -> fingerprintsAfter(start, arguments)));
        }
        start.countDown();
        for (Future<List<Fingerprint>> run : runs) {
          assertThat(run.get(30, TimeUnit.SECONDS)).isEqualTo(expected);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(expected).doesNotHaveDuplicates();
    }

    private static List<Fingerprint> fingerprintsAfter(CountDownLatch start, List<String> arguments)
        throws InterruptedException {
      start.await();
      return arguments.stream().map(a -> JCS.fingerprint("op", a)).toList();
    }

    @Test
    void refusedArgumentsGiveNoFingerprint() {
      refused(Problem.DUPLICATE_NAME, () -> JCS.fingerprint("op", "{\"a\":1,\"a\":1}"))
          .startsWith("line 1, column 8 ");
      refused(Problem.TRAILING_DATA, () -> JCS.fingerprint("op", "{} {}")).startsWith("line 1");
      refused(Problem.EMPTY, () -> JCS.fingerprint("op", " ")).isEmpty();
    }
  }
}
