package dev.onceonly;

import java.util.Objects;

/**
 * An effect, or a queue's work, tried to control the connection it was lent: to commit, roll back,
 * close it or change its auto-commit, to open or release a savepoint, or to run a statement that
 * ends the transaction or changes the session ({@code BEGIN}, {@code COMMIT}, {@code ATTACH},
 * {@code PRAGMA}, PostgreSQL's {@code SET}, {@code LISTEN}, ...). Nothing was done: the call was
 * refused before it reached the database, and the step is rolled back (even if the effect caught
 * this exception), so neither the effect's writes nor a receipt are committed.
 */
public final class ConnectionMisuseException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  /** What was refused. */
  private final String operation;

  /**
   * Creates the exception.
   *
   * @param operation what the effect tried, for example {@code "commit()"} or {@code "PRAGMA"}
   */
  public ConnectionMisuseException(String operation) {
    super(
        "an effect must not "
            + Objects.requireNonNull(operation, "operation")
            + " on the connection it is given: the library owns its transaction and session",
        null);
    this.operation = operation;
  }

  /** {@return what the effect tried} */
  public String operation() {
    return operation;
  }
}
