package dev.onceonly.testing;

import dev.onceonly.OnceOnly;
import java.util.function.Supplier;

/**
 * Closes a test's store and opens it again on the same database, with the same clock and settings,
 * as a restarted process would: what survives is what was committed. The instance that was open
 * before is closed and must not be used again.
 */
public final class Reopen {
  private final Supplier<OnceOnly> reopen;
  private final Supplier<OnceOnly> current;

  Reopen(Supplier<OnceOnly> reopen, Supplier<OnceOnly> current) {
    this.reopen = reopen;
    this.current = current;
  }

  /**
   * Closes the open store and opens it again.
   *
   * @return the reopened store, which the extension closes after the test
   */
  public OnceOnly reopen() {
    return reopen.get();
  }

  /** {@return the store open now: the first one, or the last one reopened} */
  public OnceOnly current() {
    return current.get();
  }
}
