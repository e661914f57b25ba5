package dev.onceonly.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * Builds one HTML page. Every value shown goes through {@link #text}: payloads, errors and keys are
 * user data, so markup characters become entities and invisible characters (controls, bidi
 * overrides, lone surrogates) are shown by code point, {@code \\u{202E}} for U+202E, instead of
 * acting on the page.
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
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> {
          if (Character.isHighSurrogate(c)
              && i + 1 < s.length()
              && Character.isLowSurrogate(s.charAt(i + 1))) {
            out.append(c).append(s.charAt(++i));
          } else if (invisible(c)) {
            out.append(String.format(Locale.ROOT, "\\u{%04X}", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
  }

  /**
   * Whether a character would act on the page or hide there: C0 and C1 controls and DEL, the format
   * characters of the Basic Multilingual Plane (bidi marks, embeddings, overrides and isolates,
   * zero-width and invisible ones, the soft hyphen), and surrogates not in a pair.
   */
  static boolean invisible(char c) {
    return c < 0x20
        || (c >= 0x7F && c <= 0x9F)
        || c == 0xAD
        || (c >= 0x0600 && c <= 0x0605)
        || c == 0x061C
        || c == 0x06DD
        || c == 0x070F
        || c == 0x180E
        || (c >= 0x200B && c <= 0x200F)
        || (c >= 0x202A && c <= 0x202E)
        || (c >= 0x2060 && c <= 0x206F)
        || c == 0xFEFF
        || (c >= 0xFFF9 && c <= 0xFFFB)
        || Character.isSurrogate(c);
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
