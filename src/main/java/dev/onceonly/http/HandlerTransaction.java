package dev.onceonly.http;

/**
 * Runs the filter's work in a transaction of the application's transaction manager, for the
 * transactional mode ({@link IdempotencyFilter.Builder#transactional}): the handler's own writes
 * and the stored response then commit together. The Spring support provides one ({@code
 * dev.onceonly.spring.SpringHandlerTransaction}).
 *
 * <p>The {@link dev.onceonly.OnceOnly} the filter uses must join that transaction (built with
 * {@link dev.onceonly.OnceOnlyBuilder#currentTransaction} on the same data source), or the receipt
 * would commit on its own. Implementations must be thread-safe.
 */
public interface HandlerTransaction {
  /**
   * Runs {@code work} in a new transaction, commits it when the work returns and rolls it back when
   * it throws.
   *
   * @param work the work
   * @param <T> what the work returns
   * @param <X> what the work may throw
   * @return what the work returned, once committed
   * @throws X what the work threw, unwrapped, after the rollback
   */
  <T, X extends Exception> T inTransaction(Work<T, X> work) throws X;

  /**
   * The filter's work inside the transaction.
   *
   * @param <T> what it returns
   * @param <X> what it may throw
   */
  @FunctionalInterface
  interface Work<T, X extends Exception> {
    /**
     * Runs inside the transaction.
     *
     * @return the result
     * @throws X on failure; the transaction is rolled back
     */
    T run() throws X;
  }
}
