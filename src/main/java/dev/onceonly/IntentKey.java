package dev.onceonly;

import java.util.Objects;

/**
 * The identity of one business intention: a key inside a scope.
 *
 * <p>The scope (owner, tenant) must come from the caller's authenticated identity, never from the
 * payload: the same key under two scopes is two intents. The key stays the same across every retry
 * of the intention. Which characters and lengths are allowed is checked by the store (see {@link
 * OnceOnlyBuilder#keyPattern}, or an operation's own, {@link OperationRules.Builder#keyPattern}),
 * which also refuses control characters and unpaired surrogates whatever the pattern; this record
 * only refuses nulls.
 *
 * @param scope the owner of the intent, for example a user or tenant id
 * @param key the intent's key inside that scope, for example an idempotency key
 */
public record IntentKey(String scope, String key) {
  /**
   * Refuses null components.
   *
   * @param scope the owner of the intent, for example a user or tenant id
   * @param key the intent's key inside that scope, for example an idempotency key
   */
  public IntentKey {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(key, "key");
  }

  /**
   * Returns the key {@code key} inside {@code scope}.
   *
   * @param scope the owner of the intent
   * @param key the key inside that scope
   * @return the intent key
   */
  public static IntentKey of(String scope, String key) {
    return new IntentKey(scope, key);
  }

  /**
   * Returns one string for this key that no other key shares, as queue message keys and Redis
   * dead-letter fields use it: {@code scope/key} when the scope holds only ASCII letters, digits
   * and {@code . _ : @ -} (starting with a letter or digit, so never a {@code /}) and the key only
   * those and {@code /}, as with the default patterns; otherwise {@code x:}, the escaped scope,
   * {@code @@} and the escaped key, where every character other than ASCII letters, digits and
   * {@code . _ : -} is written as {@code @}, its code point in lowercase hex and {@code .}. So
   * scope {@code a/b} with key {@code c} is {@code x:a@2f.b@@c}, and scope {@code a} with key
   * {@code b/c} is {@code a/b/c}.
   *
   * @return the key as one string, of ASCII letters, digits and {@code . _ : @ / -}
   */
  @Override
  public String toString() {
    return join(scope, key);
  }

  /** The prefix of the escaped form of {@link #join}; the plain form always holds a {@code /}. */
  private static final String ESCAPED_PREFIX = "x:";

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
  private static String join(String scope, String key) {
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
