package dev.onceonly.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * Builds one HTML page. Every value shown goes through {@link #text}: payloads, errors and keys are
 * user data, so markup characters become entities and invisible code points (controls, bidi
 * overrides, tag characters, unassigned ones, lone surrogates) are shown by code point, {@code
 * \\u{202E}} for U+202E and {@code \\u{E0041}} for U+E0041, instead of acting on the page or hiding
 * there.
 */
final class Html {
  /** The most characters of a payload or result shown; the rest is cut and counted. */
  static final int SHOWN_CHARS = 4_096;

  private final StringBuilder out = new StringBuilder(8_192);

  /** Appends trusted markup, written in this package; never user data. */
  Html raw(String markup) {
    out.append(markup);
    return this;
  }

  /** Appends a value as text. */
  Html text(Object value) {
    escape(out, value == null ? "" : String.valueOf(value));
    return this;
  }

  /** Appends a value cut to {@link #SHOWN_CHARS}, saying how much was cut. */
  Html capped(String value) {
    if (value == null) {
      return raw("<em>none</em>");
    }
    if (value.length() <= SHOWN_CHARS) {
      return raw("<pre>").text(value).raw("</pre>");
    }
    int end = SHOWN_CHARS;
    if (Character.isHighSurrogate(value.charAt(end - 1))) {
      end--;
    }
    return raw("<pre>")
        .text(value.substring(0, end))
        .raw("</pre><p class=\"cut\">cut for display: showing ")
        .text(String.format(Locale.ROOT, "%,d of %,d", end, value.length()))
        .raw(" characters</p>");
  }

  /** Appends a table cell holding a value as text. */
  Html td(Object value) {
    return raw("<td>").text(value).raw("</td>");
  }

  /** Appends a hidden form field. */
  Html hidden(String name, String value) {
    return raw("<input type=\"hidden\" name=\"")
        .text(name)
        .raw("\" value=\"")
        .text(value)
        .raw("\">");
  }

  /**
   * Appends a hidden form field that carries a value exactly, whatever characters it holds: its
   * UTF-8 in URL-safe Base64, under {@code name64}, read back by {@link
   * DashboardServlet.View#exact}. An HTML attribute would not: browsers rewrite line breaks and
   * some control characters of form values.
   */
  Html hiddenExact(String name, String value) {
    String b64 =
        java.util.Base64.getUrlEncoder()
            .encodeToString(value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return hidden(name + "64", b64);
  }

  /** Appends a link to a dashboard path. */
  Html link(String base, String path, String label) {
    return raw("<a href=\"").text(base + path).raw("\">").text(label).raw("</a>");
  }

  @Override
  public String toString() {
    return out.toString();
  }

  /** Writes {@code s} as HTML text (also safe inside a double-quoted attribute). */
  static void escape(StringBuilder out, String s) {
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i); // a lone surrogate comes back as itself
      i += Character.charCount(cp);
      switch (cp) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> visible(out, cp);
      }
    }
  }

  /** {@return {@code s} with each invisible code point written as its escape, for a log line} */
  static String visible(String s) {
    StringBuilder out = new StringBuilder(s.length());
    s.codePoints().forEach(cp -> visible(out, cp));
    return out.toString();
  }

  private static void visible(StringBuilder out, int cp) {
    if (invisible(cp)) {
      out.append(String.format(Locale.ROOT, "\\u{%04X}", cp));
    } else {
      out.appendCodePoint(cp);
    }
  }

  /**
   * Whether a code point would act on the page or hide there, by its general category: controls
   * (C0, C1, DEL), format characters anywhere in Unicode (bidi marks, embeddings, overrides and
   * isolates, zero-width ones, the soft hyphen, the tag characters U+E0000 to U+E007F), unassigned
   * and private-use code points (no font draws them alike), surrogates not in a pair, and the line
   * and paragraph separators.
   */
  static boolean invisible(int cp) {
    return switch (Character.getType(cp)) {
      case Character.CONTROL,
          Character.FORMAT,
          Character.UNASSIGNED,
          Character.PRIVATE_USE,
          Character.SURROGATE,
          Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR ->
          true;
      default -> false;
    };
  }

  /** Formats an age for people: {@code 3d 04h}, {@code 2h 05m}, {@code 4m 09s}, {@code 7s}. */
  static String age(Duration d) {
    long s = Math.max(0, d.getSeconds());
    if (s >= 86_400) {
      return String.format(Locale.ROOT, "%dd %02dh", s / 86_400, s % 86_400 / 3_600);
    }
    if (s >= 3_600) {
      return String.format(Locale.ROOT, "%dh %02dm", s / 3_600, s % 3_600 / 60);
    }
    if (s >= 60) {
      return String.format(Locale.ROOT, "%dm %02ds", s / 60, s % 60);
    }
    return s + "s";
  }

  /** Formats an instant, or a dash for none. */
  static String at(Optional<Instant> at) {
    return at.map(Instant::toString).orElse("-");
  }

  /** Formats a count with thousands separators. */
  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
