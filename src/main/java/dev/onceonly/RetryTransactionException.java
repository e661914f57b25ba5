package dev.onceonly;

/**
 * A step joined to the caller's transaction cannot see a receipt committed after that transaction's
 * snapshot was taken (PostgreSQL at {@code REPEATABLE READ} or {@code SERIALIZABLE}, whose
 * statements all read the transaction's first snapshot), so it can neither answer {@code Repeated}
 * nor run the effect. The effect did not run and the step was rolled back to its savepoint; the
 * caller's transaction should be rolled back and run again, and the new run, with a new snapshot,
 * gets {@code Repeated} with the stored result (or {@code Conflict}). The SQL state is {@code
 * 40001}, the serialization failure that retrying transaction managers already run again.
 */
public class RetryTransactionException extends StoreException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, for a person
   * @param dialect the dialect's {@code id()}
   * @param cause the driver's exception
   */
  public RetryTransactionException(String message, String dialect, Throwable cause) {
    super(message, dialect, cause);
  }
}
