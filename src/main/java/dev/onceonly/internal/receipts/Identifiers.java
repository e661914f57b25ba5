package dev.onceonly.internal.receipts;

import dev.onceonly.InvalidRequestException;
import java.util.Locale;

/**
 * The characters every identifier must avoid, whatever pattern a user configured. (The one string
 * that stands for a (scope, key) pair is {@link dev.onceonly.IntentKey#toString()}; it escapes
 * these characters too.)
 *
 * <p>Why refuse unpaired surrogates: JDBC drivers and Redis clients encode text as UTF-8 and turn
 * an unpaired surrogate into {@code ?}, so {@code t} + U+D800 and {@code t} + U+DBFF would be
 * stored as the same {@code t?} and one tenant would be answered with another's receipt. Why refuse
 * control characters: PostgreSQL's {@code text} cannot hold NUL (SQLite can, so the dialects would
 * disagree), and the advisory lock's name joins scope and key with NUL.
 */
public final class Identifiers {
  private Identifiers() {}

  /**
   * Returns {@code value} if it holds no control character (Unicode category Cc: U+0000 to U+001F
   * and U+007F to U+009F) and no unpaired surrogate.
   *
   * @throws InvalidRequestException naming {@code field} and the first such character otherwise
   */
  public static String check(String field, String value) {
    int at = firstRefused(value);
    if (at >= 0) {
      throw new InvalidRequestException(
          field,
          String.format(
              Locale.ROOT,
              "must not hold control characters or unpaired surrogates, found U+%04X at index %d",
              (int) value.charAt(at),
              at));
    }
    return value;
  }

  /** Returns the index of the first control character or unpaired surrogate, or -1. */
  static int firstRefused(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c) || Character.isISOControl(c)) {
        return i;
      }
    }
    return -1;
  }
}
