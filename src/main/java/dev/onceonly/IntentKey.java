package dev.onceonly;

import dev.onceonly.internal.Identifiers;
import java.util.Objects;

/**
 * The identity of one business intention: a key inside a scope.
 *
 * <p>The scope (owner, tenant) must come from the caller's authenticated identity, never from the
 * payload: the same key under two scopes is two intents. The key stays the same across every retry
 * of the intention. Which characters and lengths are allowed is checked by the store (see {@link
 * OnceOnly.Builder#keyPattern}, or an operation's own, {@link OperationRules.Builder#keyPattern}),
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
    return Identifiers.join(scope, key);
  }
}
