package dev.onceonly.internal.db;

/**
 * Runs a caller's own work in one of the library's write transactions, on the guarded connection an
 * effect gets, so that the caller's writes, its sends and its joined steps commit together.
 */
public final class CallerTransactions {
  private CallerTransactions() {}

  /**
   * The caller's work, as the public API's callbacks hand it over ({@code
   * OnceOnly.TransactionCallback}); its own type, so that the implementation does not depend on the
   * factory that calls it.
   *
   * @param <T> what the work returns
   * @param <X> the work's exception type
   */
  @FunctionalInterface
  public interface Work<T, X extends Exception> {
    /** Runs the work on the transaction's guarded connection. */
    T run(java.sql.Connection transaction) throws X;
  }

  /** Carries the work's own exception through the transaction runner, unwrapped after. */
  private static final class WorkFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    WorkFailed(Exception cause) {
      super(cause.getMessage(), cause, true, false);
    }
  }

  /**
   * Runs {@code work} in a write transaction of {@code database} and commits it; what the work
   * throws passes through unwrapped, after the rollback.
   */
  public static <T, X extends Exception> T run(Database database, Work<T, X> work) throws X {
    try {
      return database.writeOrJoin(c -> lent(c, work));
    } catch (WorkFailed e) {
      throw CallerTransactions.<X>unwrap(e);
    }
  }

  private static <T, X extends Exception> T lent(java.sql.Connection c, Work<T, X> work) {
    EffectConnection lent = EffectConnection.lend(c);
    T result;
    try {
      result = work.run(lent);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new WorkFailed(e); // a SQLException stays the cause: retryable() still sees it
    }
    lent.check(); // a refusal the work caught still rolls the transaction back
    return result;
  }

  @SuppressWarnings("unchecked")
  private static <X extends Exception> X unwrap(WorkFailed e) {
    Throwable cause = e.getCause();
    for (Throwable s : e.getSuppressed()) {
      cause.addSuppressed(s); // a rollback failure, earlier retried attempts
    }
    return (X) cause;
  }
}
