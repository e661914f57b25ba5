package dev.onceonly;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Writes a tree as JSON text in one of its many spellings: members shuffled, whitespace between
 * tokens, characters escaped or not, numbers in several equivalent notations. Independent of the
 * code under test.
 */
final class JsonSpeller {
  private static final String[] WHITESPACE = {"", "", "", " ", "\n", "\t", "\r\n  ", " \n\t "};
  private static final String SHORT_ESCAPES = "\"\\\b\f\n\r\t";
  private static final String SHORT_LETTERS = "\"\\bfnrt";

  private final Random random;
  private final StringBuilder out = new StringBuilder();

  private JsonSpeller(Random random) {
    this.random = random;
  }

  /** Returns one spelling of the tree, chosen by the seed. */
  static String spell(JsonNode tree, long seed) {
    JsonSpeller speller = new JsonSpeller(new Random(seed));
    speller.space();
    speller.value(tree);
    speller.space();
    return speller.out.toString();
  }

  private void space() {
    out.append(WHITESPACE[random.nextInt(WHITESPACE.length)]);
  }

  private void value(JsonNode node) {
    switch (node.getNodeType()) {
      case OBJECT -> object(node);
      case ARRAY -> array(node);
      case STRING -> string(node.textValue());
      case NUMBER -> out.append(number(node));
      case BOOLEAN, NULL -> out.append(node.toString());
      default -> throw new IllegalArgumentException("no JSON form: " + node.getNodeType());
    }
  }

  private void array(JsonNode node) {
    out.append('[');
    for (int i = 0; i < node.size(); i++) {
      space();
      if (i > 0) {
        out.append(',');
        space();
      }
      value(node.get(i));
    }
    space();
    out.append(']');
  }

  private void object(JsonNode node) {
    List<Map.Entry<String, JsonNode>> members = new ArrayList<>(node.properties());
    Collections.shuffle(members, random);
    out.append('{');
    for (int i = 0; i < members.size(); i++) {
      space();
      if (i > 0) {
        out.append(',');
        space();
      }
      string(members.get(i).getKey());
      space();
      out.append(':');
      space();
      value(members.get(i).getValue());
    }
    space();
    out.append('}');
  }

  private void string(String s) {
    out.append('"');
    s.codePoints().forEach(this::codePoint);
    out.append('"');
  }

  /** A pair of surrogates is escaped as a pair or not at all: half-escaped is not well-formed. */
  private void codePoint(int cp) {
    int shortForm = cp < 0x80 ? SHORT_ESCAPES.indexOf(cp) : -1;
    boolean mustEscape = cp < 0x20 || cp == '"' || cp == '\\';
    if (shortForm >= 0 && random.nextBoolean()) {
      out.append('\\').append(SHORT_LETTERS.charAt(shortForm));
    } else if (mustEscape || random.nextInt(6) == 0) {
      for (char unit : Character.toChars(cp)) {
        String hex = String.format(Locale.ROOT, "%04x", (int) unit);
        out.append("\\u").append(random.nextBoolean() ? hex : hex.toUpperCase(Locale.ROOT));
      }
    } else if (cp == '/' && random.nextBoolean()) {
      out.append("\\/");
    } else {
      out.appendCodePoint(cp);
    }
  }

  private String number(JsonNode node) {
    if (node.isIntegralNumber()) {
      String digits = node.bigIntegerValue().toString();
      String[] spellings = {digits, digits + ".0", digits + ".00", digits + "e0", digits + "E+0"};
      return spellings[random.nextInt(spellings.length)];
    }
    BigDecimal exact =
        node.isBigDecimal() ? node.decimalValue() : new BigDecimal(node.doubleValue());
    if (exact.signum() == 0) { // BigDecimal may spell zero with leading zeros, which JSON forbids
      String[] zeros = {"0", "-0", "0.0", "-0.0e-7", "0E+5"};
      return zeros[random.nextInt(zeros.length)];
    }
    String[] spellings = {
      node.isBigDecimal() ? exact.toString() : Double.toString(node.doubleValue()),
      exact.toString(),
      exact.toPlainString(),
      exact.toEngineeringString()
    };
    String chosen = spellings[random.nextInt(spellings.length)];
    return random.nextBoolean() ? chosen : chosen.replace('E', 'e');
  }
}
