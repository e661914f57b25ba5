package dev.onceonly.internal;

import dev.onceonly.InvalidRequestException;
import java.util.Locale;

/**
 * The characters every identifier must avoid, whatever pattern a user configured, and the one
 * string that stands for a (scope, key) pair wherever a single text key is needed.
 *
 * <p>Why refuse unpaired surrogates: JDBC drivers and Redis clients encode text as UTF-8 and turn
 * an unpaired surrogate into {@code ?}, so {@code t} + U+D800 and {@code t} + U+DBFF would be
 * stored as the same {@code t?} and one tenant would be answered with another's receipt. Why refuse
 * control characters: PostgreSQL's {@code text} cannot hold NUL (SQLite can, so the dialects would
 * disagree), and the advisory lock's name joins scope and key with NUL.
 */
public final class Identifiers {
  /** The prefix of the escaped form of {@link #join}; the plain form always holds a {@code /}. */
  static final String ESCAPED_PREFIX = "x:";

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

  /**
   * Returns the single string for a (scope, key) pair; two distinct pairs never get the same one,
   * whatever their characters, and the result uses only ASCII letters, digits and {@code . _ : @ /
   * -}, starting with a letter or digit.
   *
   * <p>Plain form, for the common case (every default scope and key): {@code scope/key}, when the
   * scope starts with a letter or digit and holds only letters, digits and {@code . _ : @ -} (no
   * {@code /}), and the key holds only those and {@code /}. The first {@code /} then ends the
   * scope, so the pair can be read back. This is the form earlier versions wrote for every pair.
   *
   * <p>Escaped form, for every other pair: {@code x:} then the escaped scope, {@code @@}, and the
   * escaped key, where escaping keeps letters, digits and {@code . _ : -} and writes every other
   * character (including {@code @} and {@code /}) as {@code @}, its code point in lowercase hex,
   * and {@code .}: {@code (a/b, c)} is {@code x:a@2f.b@@c}. It holds no {@code /}, so it never
   * equals a plain form; an escape never holds {@code @@}, so the first {@code @@} ends the scope.
   */
  public static String join(String scope, String key) {
    if (plainScope(scope) && plainKey(key)) {
      return scope + '/' + key;
    }
    StringBuilder out = new StringBuilder(ESCAPED_PREFIX.length() + scope.length() + key.length());
    out.append(ESCAPED_PREFIX);
    escape(scope, out);
    out.append("@@");
    escape(key, out);
    return out.toString();
  }

  private static boolean plainScope(String scope) {
    if (scope.isEmpty() || !alphanumeric(scope.charAt(0))) {
      return false;
    }
    for (int i = 0; i < scope.length(); i++) {
      char c = scope.charAt(i);
      if (!kept(c) && c != '@') {
        return false;
      }
    }
    return true;
  }

  private static boolean plainKey(String key) {
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (!kept(c) && c != '@' && c != '/') {
        return false;
      }
    }
    return true;
  }

  private static void escape(String s, StringBuilder out) {
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      if (cp < 0x80 && kept((char) cp)) {
        out.append((char) cp);
      } else {
        out.append('@').append(Integer.toHexString(cp)).append('.');
      }
      i += Character.charCount(cp);
    }
  }

  private static boolean kept(char c) {
    return alphanumeric(c) || c == '.' || c == '_' || c == ':' || c == '-';
  }

  private static boolean alphanumeric(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }
}
