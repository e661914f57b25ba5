package dev.onceonly;

import java.util.Objects;

/**
 * The identity of one business intention: a key inside a scope.
 *
 * <p>The scope (owner, tenant) must come from the caller's authenticated identity, never from the
 * payload: the same key under two scopes is two intents. The key stays the same across every retry
 * of the intention. Which characters and lengths are allowed is checked by the store (see {@link
 * OnceOnly.Builder#keyPattern}); this record only refuses nulls.
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

  @Override
  public String toString() {
    return scope + "/" + key;
  }
}
