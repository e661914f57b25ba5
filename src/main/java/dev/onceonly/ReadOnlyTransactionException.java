package dev.onceonly;

/**
 * A call that writes was asked to join a read-only transaction: a Spring {@code
 * Transactional(readOnly = true)} method, or a connection marked {@link
 * java.sql.Connection#setReadOnly read-only}. Nothing was written. Refused on every database, also
 * where the server would take the writes (SQLite cannot make an open connection read-only, and a
 * JPA provider in a read-only transaction does not flush its entities, so the receipt would commit
 * without the effect's entities). Run the call in a transaction that may write.
 */
public final class ReadOnlyTransactionException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param call what was refused, for example {@code "receipts().execute"}
   */
  public ReadOnlyTransactionException(String call) {
    super(
        call
            + " writes, and the transaction it would join is read-only: nothing was written. Call it"
            + " from a transaction that may write (not @Transactional(readOnly = true))",
        null);
  }
}
