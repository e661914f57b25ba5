package dev.onceonly.internal.jcs;

/**
 * Finds escapes of surrogates (a backslash, {@code u} and four hex digits) that cannot be paired
 * (RFC 7493 section 2.1).
 *
 * <p>Jackson refuses such escapes in member names with a plain parse error; this scan tells that
 * case apart from other syntax errors. Escapes are read in order, so an escaped backslash before a
 * {@code u} is not mistaken for an escape. A high surrogate escape at the very end of the text is
 * left undecided: the text is truncated, which is a syntax error.
 */
final class SurrogateEscapes {
  private SurrogateEscapes() {}

  /**
   * Returns the index of the first unpairable surrogate escape that starts before {@code end}, or
   * -1 if there is none.
   */
  static int find(String text, int end) {
    int limit = Math.min(end, text.length());
    for (int i = 0; i < limit; i++) {
      if (text.charAt(i) != '\\') {
        continue;
      }
      int unit = unit(text, i);
      if (unit < 0) {
        i++; // another escape, such as an escaped backslash: skip both characters
      } else if (Character.isLowSurrogate((char) unit)) {
        return i;
      } else if (!Character.isHighSurrogate((char) unit)) {
        i += 5;
      } else if (unpaired(text, i + 6)) {
        return i;
      } else {
        i += unit(text, i + 6) >= 0 ? 11 : 5;
      }
    }
    return -1;
  }

  /**
   * Whether what follows a high surrogate escape at {@code next} is certainly not its low half: a
   * complete escape of something else, or any other character. The end of the text, or an escape
   * cut short or malformed, decides nothing: that is a syntax error.
   */
  private static boolean unpaired(String text, int next) {
    int unit = unit(text, next);
    if (unit >= 0) {
      return !Character.isLowSurrogate((char) unit);
    }
    boolean escapeStarts =
        next < text.length()
            && text.charAt(next) == '\\'
            && (next + 1 == text.length() || text.charAt(next + 1) == 'u');
    return next < text.length() && !escapeStarts;
  }

  /** Returns the code unit of a complete escape at {@code i}, or -1 if there is none. */
  private static int unit(String text, int i) {
    if (i + 6 > text.length() || text.charAt(i) != '\\' || text.charAt(i + 1) != 'u') {
      return -1;
    }
    int value = 0;
    for (int k = i + 2; k < i + 6; k++) {
      int digit = hexDigit(text.charAt(k));
      if (digit < 0) {
        return -1;
      }
      value = value * 16 + digit;
    }
    return value;
  }

  /** JSON hex digits are ASCII only, unlike {@link Character#digit(char, int)}. */
  private static int hexDigit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    char lower = (char) (c | 0x20);
    return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
  }
}
