package dev.onceonly;

import java.util.Objects;

/**
 * An effect's result cannot be stored so that a repeated request gets the same result back: Jackson
 * cannot write it, it holds an unpaired surrogate (no UTF-8 form), or it does not read back, as the
 * requested result type, equal to what the effect returned (a type Jackson can write but not read,
 * a field Jackson skips, in a record or in a class without {@code equals}). The step was rolled
 * back, the effect's writes with it, and no receipt was written: the same key may run again with a
 * result type that round-trips.
 */
public final class UnstorableResultException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  /** The requested result type's name. */
  private final String resultType;

  /**
   * Creates the exception.
   *
   * @param resultType the requested result type
   * @param reason why the result cannot be stored, for a person
   * @param cause Jackson's failure, or {@code null}
   */
  public UnstorableResultException(Class<?> resultType, String reason, Throwable cause) {
    super(
        "the effect's result ("
            + Objects.requireNonNull(resultType, "resultType").getName()
            + ") cannot be stored: "
            + reason,
        cause);
    this.resultType = resultType.getName();
  }

  /** {@return the name of the requested result type} */
  public String resultType() {
    return resultType;
  }
}
