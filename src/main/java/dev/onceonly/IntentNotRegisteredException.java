package dev.onceonly;

import java.util.Objects;

/**
 * A step of an operation that requires a registered intent ({@link
 * OperationRules.Builder#requireRegisteredIntent()}) found none for its key. It was refused inside
 * the step's transaction: the effect did not run and nothing was written (a joined step was rolled
 * back to its savepoint; the caller's own earlier writes are the caller's).
 */
public final class IntentNotRegisteredException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  private final transient IntentKey key;

  /** The operation that requires a registered intent. */
  private final String operation;

  /**
   * Creates the exception.
   *
   * @param key the intent that was not registered
   * @param operation the operation that requires it
   */
  public IntentNotRegisteredException(IntentKey key, String operation) {
    super(
        "operation "
            + Objects.requireNonNull(operation, "operation")
            + " requires a registered intent, and none is registered for "
            + Objects.requireNonNull(key, "key"),
        null);
    this.key = key;
    this.operation = operation;
  }

  /** {@return the intent that was not registered} */
  public IntentKey key() {
    return key;
  }

  /** {@return the operation that requires a registered intent} */
  public String operation() {
    return operation;
  }
}
