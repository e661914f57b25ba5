package dev.onceonly;

import java.sql.Connection;
import java.util.Optional;

/**
 * Runs check-then-effect steps exactly once per intent.
 *
 * <p>A step, in one transaction (on SQLite a {@code BEGIN IMMEDIATE} one, on PostgreSQL one that
 * first takes a transaction-scoped lock on the key, so two writers can never both see "no
 * receipt"): look up the receipt for the key; with the same fingerprint return {@link
 * Outcome.Repeated} and the stored result; with another fingerprint return {@link
 * Outcome.Conflict}; past retention, {@link Outcome.Expired}; otherwise check the arguments against
 * a registered intent (for an operation that {@linkplain
 * OperationRules.Builder#requireRegisteredIntent requires one}, refuse a key with none), run the
 * effect with the transaction's connection, store the receipt and commit, then return {@link
 * Outcome.Created}. Nothing is answered before its commit.
 *
 * <p>Thread-safe. Per key, the effect commits at most once. It runs at most once per call, except
 * on PostgreSQL through a data source: a transaction the server aborts with a serialization failure
 * or a deadlock ({@code 40001}, {@code 40P01}) is run again, up to five times in all, and each
 * earlier run was rolled back (the final failure carries the earlier ones as suppressed).
 *
 * <p>What a result type must do: a repeated request is answered with the stored result read back as
 * {@code resultType}, so before the step commits the result is written as JSON with the configured
 * mapper, read back as {@code resultType} and compared with what the effect returned; a result that
 * does not come back equal is refused with {@link UnstorableResultException} and the step rolled
 * back. So a result type must be one Jackson can both write and read (a record, a bean with a
 * default constructor and setters, or a type with a {@code @JsonCreator}), must not skip state that
 * matters ({@code @JsonIgnore}, transient fields), and should declare {@code equals} (records do).
 * Equal means: equal components for records (arrays in them compared by content), equal elements
 * for arrays and lists, {@code equals} for other types that declare it, and, for a type of the
 * application that declares none, equal fields: every field of the class and its superclasses,
 * compared in the same sense, including the ones Jackson does not carry ({@code @JsonIgnore},
 * {@code transient}, {@code @JsonIgnoreProperties}, write-only or read-only, without accessors). So
 * a field the JSON loses is refused whenever it holds anything but its default, and its fields must
 * be readable by this library (a class in a named module opens its package to {@code dev.onceonly},
 * or declares {@code equals}); a platform type that declares none is compared by its JSON written
 * again. Use a concrete {@code resultType}: a raw {@code List.class} reads elements back as maps,
 * which is refused for a list of records. Strings, integers and booleans of exactly {@code
 * resultType} are stored without the read-back, whose JSON is exact.
 */
public interface ReceiptStore {

  /**
   * Runs a step in a transaction of its own.
   *
   * @param key the intent's identity
   * @param operation the operation's name
   * @param arguments the operation's arguments (a Jackson tree or any value Jackson converts)
   * @param resultType the effect's result type, for reading a stored result back
   * @param effect the effect; runs only for a new key, inside the transaction
   * @param <T> the result type
   * @param <X> the effect's exception type
   * @return the outcome
   * @throws X what the effect threw; the step was rolled back and no receipt written
   * @throws InvalidRequestException if the request is refused before anything ran
   * @throws IntentNotRegisteredException if the operation requires a registered intent and none is
   *     registered for the key; the effect did not run and the step was rolled back
   * @throws CanonicalizationException if the arguments are not I-JSON or too large
   * @throws UnstorableResultException if the effect's result cannot be stored so that a repetition
   *     gets it back: Jackson cannot write it, it holds an unpaired surrogate, or it does not read
   *     back as {@code resultType} equal to what the effect returned; the step was rolled back
   * @throws StoreException if the database fails; the step was rolled back
   */
  <T, X extends Exception> Outcome<T> execute(
      IntentKey key, String operation, Object arguments, Class<T> resultType, Effect<T, X> effect)
      throws X;

  /**
   * Runs a step inside a transaction the caller already has open on its own connection (for example
   * one managed by Spring). The step runs under a savepoint: if the effect fails, the step's writes
   * are rolled back to it and the caller's earlier writes are left for the caller to commit or roll
   * back. On SQLite the caller's transaction should have been started with {@code BEGIN IMMEDIATE};
   * a deferred one may fail with {@link StoreException} (busy) when it first writes.
   *
   * @param transaction an open connection with auto-commit off or an explicit transaction
   * @param key the intent's identity
   * @param operation the operation's name
   * @param arguments the operation's arguments
   * @param resultType the effect's result type
   * @param effect the effect; it receives {@code transaction}
   * @param <T> the result type
   * @param <X> the effect's exception type
   * @return the outcome; {@link Outcome.Created} means "will be durable when you commit"
   * @throws X what the effect threw, after rolling back to the step's savepoint
   * @throws IntentNotRegisteredException if the operation requires a registered intent and none is
   *     registered for the key (in the caller's transaction either), after rolling back to the
   *     step's savepoint; the effect did not run
   * @throws UnstorableResultException if the effect's result cannot be stored so that a repetition
   *     gets it back, after rolling back to the step's savepoint
   */
  <T, X extends Exception> Outcome<T> execute(
      Connection transaction,
      IntentKey key,
      String operation,
      Object arguments,
      Class<T> resultType,
      Effect<T, X> effect)
      throws X;

  /**
   * Returns the receipt stored for a key, including a tombstone.
   *
   * @param key the intent's identity
   * @return the receipt, or empty
   */
  Optional<Receipt> find(IntentKey key);

  /**
   * Applies retention to at most {@code limit} receipts: results past their expiry become
   * tombstones (or are deleted when tombstones are off), tombstones past their own retention are
   * deleted together with their intents. Call it periodically; each call is one short transaction.
   *
   * @param limit the most receipts to touch, from 1 to 10,000
   * @return how many receipts became tombstones and how many were deleted
   */
  PurgeResult purge(int limit);

  /**
   * What one {@link #purge(int)} call did.
   *
   * @param tombstoned results dropped, fingerprints kept
   * @param deleted receipts (and their intents) removed
   */
  record PurgeResult(int tombstoned, int deleted) {
    /** {@return the total number of receipts touched} */
    public int total() {
      return tombstoned + deleted;
    }
  }
}
