package dev.onceonly.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Reads the {@code Idempotency-Key} header and maps a key or a scope onto the store's patterns.
 *
 * <p>The draft (draft-ietf-httpapi-idempotency-key-header, section 2) makes the value an RFC 8941
 * sf-string ({@code "8e03978e-40d5-43e8-bc93-6894a57f9324"}); most clients send the bare form
 * ({@code 8e03978e-...}), so an sf-token is accepted too. Anything else is malformed.
 */
final class KeyHeader {
  /** The prefix of a digested key or scope; a value that starts with it is digested too. */
  static final String DIGEST_PREFIX = "sha256:";

  private static final Pattern KEY = Pattern.compile(dev.onceonly.OnceOnly.DEFAULT_KEY_PATTERN);
  private static final Pattern SCOPE = Pattern.compile(dev.onceonly.OnceOnly.DEFAULT_SCOPE_PATTERN);

  private KeyHeader() {}

  /**
   * Returns the key a header value carries, or null when it is malformed: empty, longer than {@code
   * maxLength} characters, or neither an sf-string nor an sf-token (RFC 8941 sections 3.3.3 and
   * 3.3.4), after trimming spaces and tabs.
   */
  static String parse(String raw, int maxLength) {
    String v = trim(raw);
    String key = v.startsWith("\"") ? sfString(v) : sfToken(v);
    if (key == null || key.isEmpty() || key.length() > maxLength) {
      return null;
    }
    return key;
  }

  /** RFC 8941 3.3.3: DQUOTE *( unescaped / "\" ( DQUOTE / "\" ) ) DQUOTE, printable ASCII. */
  private static String sfString(String v) {
    if (v.length() < 2 || !v.endsWith("\"")) {
      return null;
    }
    StringBuilder out = new StringBuilder(v.length());
    for (int i = 1; i < v.length() - 1; i++) {
      char c = v.charAt(i);
      if (c == '\\') {
        if (i + 1 >= v.length() - 1) {
          return null;
        }
        char next = v.charAt(++i);
        if (next != '"' && next != '\\') {
          return null;
        }
        out.append(next);
      } else if (c == '"' || c < 0x20 || c > 0x7e) {
        return null;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** RFC 8941 3.3.4: ( ALPHA / "*" ) *( tchar / ":" / "/" ); digits first are accepted too. */
  private static String sfToken(String v) {
    if (v.isEmpty()) {
      return null;
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (!tchar(c) && c != ':' && c != '/') {
        return null;
      }
    }
    return v;
  }

  private static boolean tchar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }

  private static String trim(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && (s.charAt(start) == ' ' || s.charAt(start) == '\t')) {
      start++;
    }
    while (end > start && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t')) {
      end--;
    }
    return s.substring(start, end);
  }

  /**
   * Returns the store key for a client's key: the key itself when it matches {@link
   * dev.onceonly.OnceOnly#DEFAULT_KEY_PATTERN} and does not start with {@value #DIGEST_PREFIX},
   * otherwise {@value #DIGEST_PREFIX} and the SHA-256 of its UTF-8 bytes in hex. Two distinct keys
   * never share a store key (short of a SHA-256 collision).
   */
  static String storeKey(String key) {
    return KEY.matcher(key).matches() && !key.startsWith(DIGEST_PREFIX) ? key : digest(key);
  }

  /** Returns the store scope for a resolved scope, by the same rule on the scope pattern. */
  static String storeScope(String scope) {
    return SCOPE.matcher(scope).matches() && !scope.startsWith(DIGEST_PREFIX)
        ? scope
        : digest(scope);
  }

  static String digest(String s) {
    return DIGEST_PREFIX + sha256Hex(s.getBytes(StandardCharsets.UTF_8));
  }

  static String sha256Hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }
}
