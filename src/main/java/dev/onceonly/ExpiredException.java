package dev.onceonly;

import java.time.Instant;

/**
 * The key ran before but its result is past retention. Thrown only by {@link
 * Outcome#resultOrThrow()}; the store returns {@link Outcome.Expired} as a value.
 */
public final class ExpiredException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  private final transient IntentKey key;

  /** When the result expired. */
  private final Instant expiredAt;

  /**
   * Creates the exception.
   *
   * @param key the intent
   * @param expiredAt when its result expired
   */
  public ExpiredException(IntentKey key, Instant expiredAt) {
    super("the result of " + key + " expired at " + expiredAt + "; the key cannot be reused", null);
    this.key = key;
    this.expiredAt = expiredAt;
  }

  /** {@return the intent} */
  public IntentKey key() {
    return key;
  }

  /** {@return when the result expired} */
  public Instant expiredAt() {
    return expiredAt;
  }
}
