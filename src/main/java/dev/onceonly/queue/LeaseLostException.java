package dev.onceonly.queue;

import dev.onceonly.OnceOnlyException;

/**
 * A lease is no longer held by its holder. Thrown by {@link QueueResult#orThrow()}, and by a
 * transactional worker step whose lease was taken over before it could commit (the step was rolled
 * back).
 */
public final class LeaseLostException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  /** The message's key. */
  private final String key;

  /** The stale fencing number. */
  private final long fence;

  /**
   * Creates the exception.
   *
   * @param key the message's key
   * @param fence the stale fencing number
   */
  public LeaseLostException(String key, long fence) {
    super("lease on message " + key + " (fence " + fence + ") is no longer held", null);
    this.key = key;
    this.fence = fence;
  }

  /** {@return the message's key} */
  public String key() {
    return key;
  }

  /** {@return the stale fencing number} */
  public long fence() {
    return fence;
  }
}
