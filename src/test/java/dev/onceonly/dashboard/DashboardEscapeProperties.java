package dev.onceonly.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Generated text through the dashboard's escaping, checked against a reference decoder written
 * independently here: what the page shows decodes back to the exact input, and it holds no markup
 * character and no invisible one (controls, bidi controls, zero-width characters, unpaired
 * surrogates), as classified here by {@link Character#getType} rather than by the code under test.
 */
class DashboardEscapeProperties {
  private static final long SEED = 0x0DA5_4B0AL;

  /**
   * Code points a page must not hold raw, classified without the escaper's own table: markup,
   * controls, format characters (bidi controls, zero-width ones) and unpaired surrogates.
   */
  private static boolean mustNotShowRaw(int cp) {
    int type = Character.getType(cp);
    return cp == '<' || cp == '>' || cp == '"' || cp == '\'' || hidden(cp);
  }

  /**
   * Code points the page shows as escapes, by their general category alone: controls, format
   * characters (bidi controls, zero-width ones, tag characters), unassigned and private-use code
   * points, surrogates, and the line and paragraph separators.
   */
  private static boolean hidden(int cp) {
    int type = Character.getType(cp);
    return type == Character.CONTROL
        || type == Character.FORMAT
        || type == Character.UNASSIGNED
        || type == Character.PRIVATE_USE
        || type == Character.SURROGATE
        || type == Character.LINE_SEPARATOR
        || type == Character.PARAGRAPH_SEPARATOR;
  }

  /** What the page must show for one code point, written without the escaper. */
  private static String reference(int cp) {
    switch (cp) {
      case '&':
        return "&amp;";
      case '<':
        return "&lt;";
      case '>':
        return "&gt;";
      case '"':
        return "&quot;";
      case '\'':
        return "&#39;";
      default:
        break;
    }
    if (hidden(cp)) {
      String hex = Integer.toHexString(cp).toUpperCase(Locale.ROOT);
      return "\\u{" + "0".repeat(Math.max(0, 4 - hex.length())) + hex + "}";
    }
    return new String(Character.toChars(cp));
  }

  /**
   * Every code point of Unicode, U+0000 to U+10FFFF (a surrogate alone), between two letters: the
   * page shows it as {@link #reference} says, so two keys that differ by any one code point are
   * shown differently.
   */
  @Test
  void everyCodePointIsShownAsItsCategorySays() {
    StringBuilder out = new StringBuilder();
    for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
      out.setLength(0);
      Html.escape(out, "a" + new String(Character.toChars(cp)) + "b");
      String expected = "a" + reference(cp) + "b";
      if (!expected.contentEquals(out)) {
        throw new AssertionError(
            String.format(
                Locale.ROOT,
                "U+%04X (type %d): %s, not %s",
                cp,
                Character.getType(cp),
                out,
                expected));
      }
    }
  }

  @Test
  void escapedTextDecodesToTheInputAndHoldsNothingActiveOrInvisible() {
    for (int trial = 0; trial < 20_000; trial++) {
      long seed = SEED + trial;
      String input = generate(new SplittableRandom(seed));
      StringBuilder out = new StringBuilder();
      Html.escape(out, input);
      String shown = out.toString();
      assertThat(decode(shown)).as("seed %d", seed).isEqualTo(input);
      int[] raw = shown.codePoints().filter(DashboardEscapeProperties::mustNotShowRaw).toArray();
      if (raw.length > 0) {
        throw new AssertionError(
            String.format("seed %d: U+%04X shown raw in %s", seed, raw[0], shown));
      }
    }
  }

  @Test
  void cutTextKeepsItsSurrogatePairsWhole() {
    String emoji = "\uD83D\uDE00";
    String text = "a".repeat(Html.SHOWN_CHARS - 1) + emoji + "tail";
    String page = new Html().capped(text).toString();
    assertThat(page).doesNotContain("\\u{D83D}").contains("cut for display: showing 4,095 of");
  }

  private static String generate(SplittableRandom r) {
    int[][] ranges = {
      {0x20, 0x7E},
      {0x00, 0x1F},
      {0x7F, 0x9F},
      {0x200B, 0x200F},
      {0x202A, 0x202E},
      {0x2060, 0x206F},
      {0x061C, 0x061C},
      {0xFEFF, 0xFEFF},
      {0xD800, 0xDFFF},
      {0x0400, 0x04FF},
      {0x1F600, 0x1F64F},
      {0xE0000, 0xE007F},
      {0xF0000, 0xF00FF},
      {0x1D173, 0x1D17A},
      {0x2FFFE, 0x2FFFF},
      {'<', '<'},
      {'&', '&'},
      {'"', '"'},
      {'\'', '\''}
    };
    StringBuilder s = new StringBuilder();
    int n = r.nextInt(40);
    for (int i = 0; i < n; i++) {
      int[] range = ranges[r.nextInt(ranges.length)];
      s.appendCodePoint(range[0] + r.nextInt(range[1] - range[0] + 1));
    }
    return s.toString();
  }

  /** Reads a shown text back: the five entities and the {@code \\u{XXXX}} escapes. */
  private static String decode(String shown) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < shown.length(); ) {
      int close = shown.startsWith("\\u{", i) ? shown.indexOf('}', i) : -1;
      if (close > 0) {
        out.appendCodePoint(Integer.parseInt(shown.substring(i + 3, close), 16));
        i = close + 1;
        continue;
      }
      String[][] entities = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}
      };
      boolean matched = false;
      for (String[] e : entities) {
        if (shown.startsWith(e[0], i)) {
          out.append(e[1]);
          i += e[0].length();
          matched = true;
          break;
        }
      }
      if (!matched) {
        out.append(shown.charAt(i++));
      }
    }
    return out.toString();
  }
}
