package dev.onceonly;

/**
 * The root of every exception OnceOnly throws on purpose. Unchecked: callers catch the subclass
 * they can act on.
 */
public abstract class OnceOnlyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message and an optional cause.
   *
   * @param message what went wrong, for a person
   * @param cause the underlying failure, or {@code null}
   */
  protected OnceOnlyException(String message, Throwable cause) {
    super(message, cause);
  }
}
