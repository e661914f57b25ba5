package dev.onceonly.internal.db;

import dev.onceonly.OnceOnly;

/**
 * Runs a caller's own work in one of the library's write transactions, on the guarded connection an
 * effect gets, so that the caller's writes, its sends and its joined steps commit together.
 */
public final class CallerTransactions {
  private CallerTransactions() {}

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
  public static <T, X extends Exception> T run(
      Database database, OnceOnly.TransactionCallback<T, X> work) throws X {
    try {
      return database.writeOrJoin(c -> lent(c, work));
    } catch (WorkFailed e) {
      throw CallerTransactions.<X>unwrap(e);
    }
  }

  private static <T, X extends Exception> T lent(
      java.sql.Connection c, OnceOnly.TransactionCallback<T, X> work) {
    EffectConnection lent = EffectConnection.lend(c);
    T result;
    try {
      result = work.inTransaction(lent);
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
