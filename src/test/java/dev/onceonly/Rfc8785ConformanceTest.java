package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The published RFC 8785 vectors in src/test/resources/rfc8785 (provenance in its README). */
class Rfc8785ConformanceTest {
  private static final Canonicalizer JCS = Canonicalizer.defaults();
  private static final ObjectMapper MAPPER = new ObjectMapper();

  static byte[] resource(String path) {
    try (InputStream in = Rfc8785ConformanceTest.class.getResourceAsStream("/rfc8785/" + path)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource rfc8785/" + path);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> lines(String path) {
    return new String(resource(path), StandardCharsets.UTF_8)
        .lines()
        .filter(l -> !l.isBlank())
        .toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"arrays", "french", "structures", "unicode", "values", "weird"})
  void officialInputsCanonicalizeToOfficialOutputs(String name) {
    byte[] input = resource("input/" + name + ".json");
    byte[] expected = resource("output/" + name + ".json");
    assertThat(JCS.canonicalize(input)).isEqualTo(expected);
    assertThat(JCS.canonicalize(new String(input, StandardCharsets.UTF_8))).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"arrays", "french", "structures", "unicode", "values", "weird"})
  void officialHexOutputsMatchTreeInput(String name) throws IOException {
    byte[] expected =
        HexFormat.of()
            .parseHex(
                new String(resource("outhex/" + name + ".txt"), StandardCharsets.US_ASCII)
                    .replaceAll("\\s", ""));
    JsonNode tree = MAPPER.readTree(resource("input/" + name + ".json"));
    assertThat(JCS.canonicalize(tree)).isEqualTo(expected);
  }

  static Stream<Arguments> numberVectors() {
    List<Arguments> all = new ArrayList<>();
    for (String file :
        List.of("numbers/rfc8785-appendix-b.txt", "numbers/cyberphone-verify-samples.txt")) {
      for (String line : lines(file)) {
        String[] parts = line.split(",", 2);
        all.add(Arguments.of(file, parts[0], parts[1]));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{1} -> {2}")
  @MethodSource("numberVectors")
  void numbersSerializeAsEcmaScript(String file, String hex, String expected) {
    double value = Double.longBitsToDouble(Long.parseUnsignedLong(hex, 16));
    String json = "[" + new java.math.BigDecimal(value).toString() + "]";
    assertThat(JCS.canonicalString(json)).isEqualTo("[" + expected + "]");
    assertThat(JCS.canonicalString(MAPPER.getNodeFactory().arrayNode().add(value)))
        .isEqualTo("[" + expected + "]");
  }

  @ParameterizedTest
  @MethodSource("invalidDoubles")
  void nonFiniteDoublesAreRefused(String hex) {
    double value = Double.longBitsToDouble(Long.parseUnsignedLong(hex, 16));
    assertThatThrownBy(() -> JCS.canonicalize(MAPPER.getNodeFactory().numberNode(value)))
        .isInstanceOfSatisfying(
            CanonicalizationException.class,
            e ->
                assertThat(e.problem())
                    .isEqualTo(CanonicalizationException.Problem.NUMBER_OUT_OF_RANGE));
  }

  static Stream<String> invalidDoubles() {
    return lines("numbers/invalid-ieee.txt").stream();
  }

  static Stream<Arguments> extraCases() throws IOException {
    JsonNode cases = MAPPER.readTree(resource("extra-cases.json"));
    List<Arguments> all = new ArrayList<>();
    cases.forEach(
        c -> all.add(Arguments.of(c.get("input").textValue(), c.get("expected").textValue())));
    return all.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("extraCases")
  void extraCasesCanonicalize(String input, String expected) {
    assertThat(JCS.canonicalize(input)).isEqualTo(expected.getBytes(StandardCharsets.UTF_8));
  }

  static Stream<Arguments> extraErrorCases() throws IOException {
    JsonNode cases = MAPPER.readTree(resource("extra-error-cases.json"));
    List<Arguments> all = new ArrayList<>();
    for (JsonNode c : cases) {
      byte[] bytes =
          c.has("input_hex")
              ? HexFormat.of().parseHex(c.get("input_hex").textValue())
              : c.get("input").textValue().getBytes(StandardCharsets.UTF_8);
      all.add(Arguments.of(c.get("error").textValue(), bytes));
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("extraErrorCases")
  void extraErrorCasesAreRefused(String error, byte[] input) {
    assertThatThrownBy(() -> JCS.canonicalize(input)).isInstanceOf(CanonicalizationException.class);
  }
}
