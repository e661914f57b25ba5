package dev.onceonly;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Random I-JSON values as Jackson trees (no duplicate names, no lone surrogates), random numbers
 * and number text, and random text that is mostly not JSON. Everything comes from one seeded {@link
 * SplittableRandom}, so a seed gives back the same values.
 */
final class RandomJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Code points of short member names: few, so that names share prefixes and collide. */
  private static final int[] NAME_CODE_POINTS = {
    'a', 'b', 'A', 'B', '_', '1', 0xE9, 0x20AC, 0xFFFD, 0x1F600
  };

  /** Characters JSON must escape or may escape, and the boundaries of the escaped range. */
  private static final int[] SPECIAL_CODE_POINTS = {0x00, 0x08, 0x0A, 0x1F, 0x22, 0x2F, 0x5C, 0x7F};

  private static final long TWO_POW_53 = 1L << 53;

  private static final double[] EXTREME_DOUBLES = {
    0.0,
    -0.0,
    Double.MIN_VALUE,
    2 * Double.MIN_VALUE,
    3 * Double.MIN_VALUE,
    Math.nextDown(Double.MIN_NORMAL),
    Double.MIN_NORMAL,
    Math.nextUp(Double.MIN_NORMAL),
    Double.MAX_VALUE,
    Math.nextDown(Double.MAX_VALUE),
    1e-7,
    Math.nextDown(1e-6),
    1e-6,
    Math.nextUp(1e-6),
    Math.nextDown(1e21),
    1e21,
    Math.nextUp(1e21),
    1e22,
    1e23,
    0x1p53 - 1,
    0x1p53,
    0x1p53 + 2,
    0x1p63,
    0x1p64,
    0.1,
    0.2,
    0.1 + 0.2,
    1.0 / 3,
    2.0 / 3,
    0.5,
    1.5,
    2.5,
    5e-324,
    9.5,
    123456789012345680.0
  };

  private static final String[] EXTREME_NUMBER_TEXTS = {
    "1e99999999999",
    "-1e99999999999",
    "1e-99999999999",
    "0e99999",
    "-0",
    "-0.0e-7",
    "2.4703282292062327e-324", // just under half the smallest subnormal: rounds to zero
    "2.4703282292062328e-324", // just over: rounds up to the smallest subnormal
    "4.9e-324",
    "2.2250738585072011e-308", // next to the smallest normal, once a hang in some parsers
    "2.2250738585072012e-308",
    "1.7976931348623157e308",
    "1.7976931348623158e308", // below the overflow threshold: rounds to MAX_VALUE
    "1.7976931348623159e308", // above it: infinite, out of range
    "9007199254740993", // 2^53 + 1: halfway, ties to even
    "9007199254740995",
    "0.30000000000000004",
    "1e21",
    "1e-7"
  };

  private static final String[] JSONISH_TOKENS = {
    "{", "}", "[", "]", ",", ":", "\"", "\"a\"", "\\", "\\u", "\\ud800", "\\udc00",
        "\\ud83d\\ude00",
    "\\n", "1", "-0", "1.5E3", "1e400", "0x1", "true", "null", "NaN", " ", "\n", "\uD800", "\uDC00",
    "\uD83D\uDE00", "\u00e9", "\u0000"
  };

  private final SplittableRandom random;

  RandomJson(SplittableRandom random) {
    this.random = random;
  }

  /**
   * A tree at most {@code maxDepth} containers deep (the depth limit is itself random, as low as
   * 0); each container has up to 4 children, and any child may be a scalar.
   */
  JsonNode tree(int maxDepth) {
    return node(random.nextInt(maxDepth + 1));
  }

  private JsonNode node(int depth) {
    if (depth == 0) {
      return scalar();
    }
    int pick = random.nextInt(5); // scalar : array : object = 1 : 2 : 2
    if (pick == 0) {
      return scalar();
    }
    int size = random.nextInt(5);
    if (pick <= 2) {
      ArrayNode array = NODES.arrayNode();
      for (int i = 0; i < size; i++) {
        array.add(node(depth - 1));
      }
      return array;
    }
    Map<String, JsonNode> members = new LinkedHashMap<>();
    for (int attempt = 0; members.size() < size && attempt < 4 * size; attempt++) {
      members.putIfAbsent(name(), node(depth - 1));
    }
    ObjectNode object = NODES.objectNode();
    object.setAll(members);
    return object;
  }

  JsonNode scalar() {
    return switch (random.nextInt(7)) {
      case 0 -> NODES.nullNode();
      case 1 -> NODES.booleanNode(random.nextBoolean());
      case 2 -> NODES.numberNode(anInt());
      case 3 -> NODES.numberNode(aLong());
      case 4 -> NODES.numberNode(finiteDouble());
      case 5 -> NODES.numberNode(BigDecimal.valueOf(aLong(), random.nextInt(-30, 31)));
      default -> NODES.textNode(string(12));
    };
  }

  /** Member names: often short and sharing prefixes, so that sorting has work to do. */
  String name() {
    if (random.nextBoolean()) {
      return string(8);
    }
    StringBuilder name = new StringBuilder();
    for (int n = random.nextInt(4); n > 0; n--) {
      name.appendCodePoint(NAME_CODE_POINTS[random.nextInt(NAME_CODE_POINTS.length)]);
    }
    return name.toString();
  }

  /**
   * Up to {@code maxCodePoints} whole code points: printable ASCII, controls and JSON specials, the
   * rest of the BMP without surrogates, and supplementary characters (surrogate pairs).
   */
  String string(int maxCodePoints) {
    StringBuilder s = new StringBuilder();
    for (int n = random.nextInt(maxCodePoints + 1); n > 0; n--) {
      s.appendCodePoint(codePoint());
    }
    return s.toString();
  }

  private int codePoint() {
    int pick = random.nextInt(11); // 6 : 2 : 2 : 1
    if (pick < 6) {
      return random.nextInt(0x20, 0x7F);
    } else if (pick < 8) {
      return SPECIAL_CODE_POINTS[random.nextInt(SPECIAL_CODE_POINTS.length)];
    } else if (pick < 10) {
      int c = random.nextInt(0x80, 0x10000 - 0x800); // skip the 0x800 surrogates
      return c < 0xD800 ? c : c + 0x800;
    } else {
      return random.nextInt(0x10000, 0x110000);
    }
  }

  /** Ints: the extremes and their neighbours, small values, or any int. */
  int anInt() {
    return switch (random.nextInt(4)) {
      case 0 -> pick(Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -1, 0, 1, Integer.MAX_VALUE);
      case 1 -> random.nextInt(-1000, 1001);
      default -> random.nextInt();
    };
  }

  /** Longs: the extremes, values around 2^53 (where doubles stop being exact), or any long. */
  long aLong() {
    return switch (random.nextInt(5)) {
      case 0 -> pick(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L, Long.MAX_VALUE);
      case 1 -> sign(TWO_POW_53 + random.nextInt(-3, 4));
      case 2 -> random.nextLong(-1_000_000, 1_000_001);
      default -> random.nextLong();
    };
  }

  /**
   * Finite doubles: any bit pattern (so every exponent, subnormals included, is as likely as any
   * other), subnormals alone, short decimals, thousandths, integers, exact halves and other dyadic
   * fractions, and the extremes and boundaries of the number format.
   */
  double finiteDouble() {
    return switch (random.nextInt(8)) {
      case 0 -> anyFiniteBits();
      case 1 -> sign(Double.longBitsToDouble(random.nextLong(1L << 52))); // subnormal or zero
      case 2 -> sign(BigDecimal.valueOf(shortDigits(), random.nextInt(-25, 26)).doubleValue());
      case 3 -> random.nextInt(-1_000_000, 1_000_001) / 1000.0;
      case 4 -> random.nextBoolean() ? anInt() : aLong();
      case 5 -> sign(random.nextLong(TWO_POW_53 / 2) + 0.5); // halfway between integers
      case 6 -> sign(random.nextLong(1, TWO_POW_53) * Math.scalb(1.0, -random.nextInt(1, 1075)));
      default -> sign(extremeDouble());
    };
  }

  private double anyFiniteBits() {
    while (true) {
      double d = Double.longBitsToDouble(random.nextLong());
      if (Double.isFinite(d)) {
        return d;
      }
    }
  }

  /** 1 to 17 significant digits. */
  private long shortDigits() {
    long bound = 1;
    for (int digits = random.nextInt(1, 18); digits > 0; digits--) {
      bound *= 10;
    }
    return random.nextLong(bound);
  }

  private double extremeDouble() {
    if (random.nextBoolean()) {
      return EXTREME_DOUBLES[random.nextInt(EXTREME_DOUBLES.length)];
    }
    double power = Double.parseDouble("1e" + random.nextInt(-323, 309)); // a power of ten
    return switch (random.nextInt(3)) {
      case 0 -> Math.nextDown(power);
      case 1 -> power;
      default -> Math.nextUp(power);
    };
  }

  /**
   * Number text that is hard to read correctly: the exact midpoint between two adjacent doubles
   * (ties round to even) or that midpoint nudged up or down in its last digit; long digit strings
   * over a wide range of exponents; and the edges of the range, where text under- or overflows.
   * Some are negated.
   */
  String numberText() {
    String text =
        switch (random.nextInt(3)) {
          case 0 -> nearMidpoint(finiteDouble(), random.nextInt(-1, 2));
          case 1 -> "1" + digits(random.nextInt(1, 41)) + "e" + random.nextInt(-400, 401);
          default -> EXTREME_NUMBER_TEXTS[random.nextInt(EXTREME_NUMBER_TEXTS.length)];
        };
    return random.nextInt(4) == 0 && !text.startsWith("-") ? "-" + text : text;
  }

  private String digits(int n) {
    StringBuilder digits = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      digits.append((char) ('0' + random.nextInt(10)));
    }
    return digits.toString();
  }

  /** The midpoint of |value| and the next double up, plus {@code nudge} units in its last place. */
  static String nearMidpoint(double value, int nudge) {
    double magnitude = Math.min(Math.abs(value), Math.nextDown(Double.MAX_VALUE));
    BigDecimal low = new BigDecimal(magnitude);
    BigDecimal high = new BigDecimal(Math.nextUp(magnitude));
    BigDecimal mid = low.add(high).divide(BigDecimal.valueOf(2));
    BigDecimal ulp = BigDecimal.ONE.movePointLeft(mid.scale());
    return mid.add(ulp.multiply(BigDecimal.valueOf(nudge))).toString();
  }

  /** Up to 30 pieces, each a JSON-ish token or any char (lone surrogates included). */
  String jsonishText() {
    StringBuilder text = new StringBuilder();
    for (int n = random.nextInt(31); n > 0; n--) {
      if (random.nextBoolean()) {
        text.append(JSONISH_TOKENS[random.nextInt(JSONISH_TOKENS.length)]);
      } else {
        text.append((char) random.nextInt(0x10000));
      }
    }
    return text.toString();
  }

  /**
   * Either up to {@code maxLength} random bytes, or JSON-ish text in UTF-8 (of any length) with up
   * to two of its bytes overwritten.
   */
  byte[] bytes(int maxLength) {
    byte[] bytes;
    if (random.nextBoolean()) {
      bytes = new byte[random.nextInt(maxLength + 1)];
      random.nextBytes(bytes);
      return bytes;
    }
    bytes = jsonishText().getBytes(StandardCharsets.UTF_8);
    for (int hits = random.nextInt(3); hits > 0 && bytes.length > 0; hits--) {
      bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
    }
    return bytes;
  }

  private double sign(double d) {
    return random.nextBoolean() ? d : -d;
  }

  private long sign(long l) {
    return random.nextBoolean() ? l : -l;
  }

  private int pick(int... choices) {
    return choices[random.nextInt(choices.length)];
  }

  private long pick(long... choices) {
    return choices[random.nextInt(choices.length)];
  }
}
