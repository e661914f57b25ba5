package dev.onceonly;

import java.sql.Connection;
import java.util.List;
import java.util.Optional;

/**
 * Records intentions before they are published, so that none is forgotten: register first, then
 * publish; a reconciler lists what has no receipt yet and publishes it again.
 *
 * <p>Thread-safe. Every method validates its input before touching the database; on any exception
 * nothing was written.
 */
public interface IntentStore {

  /**
   * Registers an intent in a transaction of its own.
   *
   * @param key the intent's identity
   * @param operation the operation's name
   * @param arguments the operation's arguments: a Jackson tree, or any value Jackson can turn into
   *     one
   * @return {@link Registration.Registered}, {@link Registration.AlreadyRegistered} (same
   *     fingerprint) or {@link Registration.Conflict} (other fingerprint; nothing written)
   * @throws InvalidRequestException if the scope, key, operation or arguments are refused
   * @throws CanonicalizationException if the arguments are not I-JSON or too large
   * @throws StoreException if the database fails
   */
  Registration register(IntentKey key, String operation, Object arguments);

  /**
   * Registers an intent inside a transaction the caller already has open on {@code transaction}, so
   * that it commits (or not) with the caller's own writes (outbox).
   *
   * @param transaction an open connection inside a transaction; not committed or closed here
   * @param key the intent's identity
   * @param operation the operation's name
   * @param arguments the operation's arguments
   * @return as {@link #register(IntentKey, String, Object)}
   */
  Registration register(Connection transaction, IntentKey key, String operation, Object arguments);

  /**
   * Returns the registered intent for a key.
   *
   * @param key the intent's identity
   * @return the intent, or empty if none is registered
   */
  Optional<Intent> find(IntentKey key);

  /**
   * Lists intents that have no receipt yet, ordered by scope then key, at most {@code limit}.
   *
   * @param limit the largest batch, from 1 to 10,000
   * @return the first intents without a receipt
   */
  List<Intent> pending(int limit);

  /**
   * Lists intents without a receipt that sort after {@code after}, for paging through a large
   * backlog in a stable order.
   *
   * @param after the last key of the previous batch
   * @param limit the largest batch, from 1 to 10,000
   * @return the next intents without a receipt, ordered by scope then key
   */
  List<Intent> pendingAfter(IntentKey after, int limit);
}
