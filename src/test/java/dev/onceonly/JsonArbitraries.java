package dev.onceonly;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/** jqwik generators of I-JSON values as Jackson trees: no duplicates, no lone surrogates. */
final class JsonArbitraries {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private JsonArbitraries() {}

  /** Trees nested up to {@code maxDepth} containers deep, with at most 4 children each. */
  static Arbitrary<JsonNode> trees(int maxDepth) {
    return Arbitraries.recursive(
        JsonArbitraries::scalars, JsonArbitraries::containers, 0, maxDepth);
  }

  private static Arbitrary<JsonNode> containers(Arbitrary<JsonNode> children) {
    Arbitrary<JsonNode> arrays = children.list().ofMaxSize(4).map(JsonArbitraries::array);
    Arbitrary<JsonNode> objects =
        Arbitraries.maps(names(), children).ofMaxSize(4).map(JsonArbitraries::object);
    return Arbitraries.frequencyOf(
        Tuple.of(1, scalars()), Tuple.of(2, arrays), Tuple.of(2, objects));
  }

  private static JsonNode array(List<JsonNode> children) {
    ArrayNode array = NODES.arrayNode();
    array.addAll(children);
    return array;
  }

  private static JsonNode object(Map<String, JsonNode> members) {
    ObjectNode object = NODES.objectNode();
    object.setAll(members);
    return object;
  }

  static Arbitrary<JsonNode> scalars() {
    return Arbitraries.oneOf(
        Arbitraries.just(NODES.nullNode()),
        Arbitraries.of(true, false).map(NODES::booleanNode),
        Arbitraries.integers().map(NODES::numberNode),
        Arbitraries.longs().map(NODES::numberNode),
        finiteDoubles().map(NODES::numberNode),
        decimals().map(NODES::numberNode),
        strings(12).map(NODES::textNode));
  }

  /** Every finite double is equally likely by bit pattern, so subnormals and extremes show up. */
  static Arbitrary<Double> finiteDoubles() {
    return Arbitraries.oneOf(
        Arbitraries.longs().map(Double::longBitsToDouble).filter(Double::isFinite),
        Arbitraries.doubles(),
        Arbitraries.integers().between(-1_000_000, 1_000_000).map(i -> i / 1000.0));
  }

  private static Arbitrary<BigDecimal> decimals() {
    return Combinators.combine(Arbitraries.longs(), Arbitraries.integers().between(-30, 30))
        .as(BigDecimal::valueOf);
  }

  /** Member names: short and often sharing prefixes, so that sorting has work to do. */
  static Arbitrary<String> names() {
    Arbitrary<String> small = Arbitraries.strings().withChars("abAB_1\u00e9\u20ac").ofMaxLength(3);
    return Arbitraries.oneOf(small, strings(8));
  }

  /** Strings of whole code points: ASCII, controls and JSON specials, the BMP, and beyond. */
  static Arbitrary<String> strings(int maxCodePoints) {
    return codePoints()
        .list()
        .ofMaxSize(maxCodePoints)
        .map(cps -> cps.stream().map(Character::toString).collect(Collectors.joining()));
  }

  private static Arbitrary<Integer> codePoints() {
    return Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.integers().between(0x20, 0x7E)),
        Tuple.of(2, Arbitraries.of(0x00, 0x08, 0x0A, 0x1F, 0x22, 0x2F, 0x5C, 0x7F)),
        Tuple.of(
            2, Arbitraries.integers().between(0x80, 0xFFFF).filter(c -> c < 0xD800 || c > 0xDFFF)),
        Tuple.of(1, Arbitraries.integers().between(0x10000, 0x10FFFF)));
  }
}
