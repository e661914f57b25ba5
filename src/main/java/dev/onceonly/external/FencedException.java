package dev.onceonly.external;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnlyException;

/**
 * A claim no longer holds its intent: its report was refused and changed nothing. Thrown only by
 * {@link Settlement#orThrow()}; the store returns {@link Settlement.Fenced} as a value.
 */
public final class FencedException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  private final transient IntentKey key;

  /** The stale fencing number. */
  private final long fence;

  /** The intent's state when the report was refused, or null. */
  private final ClaimState current;

  /**
   * Creates the exception.
   *
   * @param key the intent
   * @param fence the stale fencing number
   * @param current the intent's state now, or null
   */
  public FencedException(IntentKey key, long fence, ClaimState current) {
    super(
        "claim on " + key + " (fence " + fence + ") no longer holds the intent; it is " + current,
        null);
    this.key = key;
    this.fence = fence;
    this.current = current;
  }

  /** {@return the intent} */
  public IntentKey key() {
    return key;
  }

  /** {@return the stale fencing number} */
  public long fence() {
    return fence;
  }

  /** {@return the intent's state when the report was refused, or null} */
  public ClaimState current() {
    return current;
  }
}
