package dev.onceonly;

import java.sql.Connection;

/**
 * The business effect of a step, run inside the step's transaction.
 *
 * <p>It must write only through the connection it is given, so that the effect and its receipt
 * commit together or not at all; it must not commit, roll back or close that connection (the
 * connection it is lent refuses that, savepoints, session settings and statements such as {@code
 * COMMIT}, {@code ATTACH}, {@code PRAGMA} or PostgreSQL's {@code SET}, with {@link
 * ConnectionMisuseException}; docs/concepts.md lists what it refuses and what it cannot see), nor
 * call back into OnceOnly (such a nested call fails with {@link IllegalStateException}) except to
 * join a step to that same connection (a {@code ReceiptStore.execute(connection, ...)} or {@code
 * JobQueue.send(connection, ...)} inside {@code JobQueue.complete} or {@code
 * OnceOnly.inTransaction}), nor wait on the network while the transaction is open. Exceptions it
 * throws pass through unwrapped after the step has been rolled back.
 *
 * @param <T> the result type, serialized into the receipt with Jackson
 * @param <X> the exception type the effect may throw
 */
@FunctionalInterface
public interface Effect<T, X extends Exception> {
  /**
   * Performs the effect.
   *
   * @param connection the step's connection, inside its open transaction
   * @return the result to store in the receipt and hand back to the caller
   * @throws X if the effect fails; the step is rolled back
   */
  T apply(Connection connection) throws X;
}
