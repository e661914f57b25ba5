package dev.onceonly.maintenance;

import dev.onceonly.Durability;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/**
 * Looks inside a store and applies retention and migrations, from {@link
 * dev.onceonly.OnceOnly#maintenance()}.
 *
 * <p>Thread-safe, and safe with many instances on one database: every operation runs in short
 * transactions of its own, reads only committed rows, and each purge batch deletes rows that
 * another instance purging at the same time may also select; a row deleted twice is counted once,
 * by whichever deleted it. Counts are read with one statement each in one connection, so on
 * PostgreSQL they may come from slightly different moments under concurrent writes.
 *
 * <p>Bad arguments ({@code null}, a negative duration, a batch size outside 1 to {@link
 * #MAX_BATCH}) are refused with {@link IllegalArgumentException} or {@link NullPointerException}
 * before anything is read or written.
 */
public interface Maintenance {
  /** The largest batch a purge accepts. */
  int MAX_BATCH = 10_000;

  /**
   * Counts the rows of every table per state, at this instance's clock.
   *
   * @return an immutable snapshot of the counts, the oldest pending intent and due message, and the
   *     schema version found
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  StoreStatus status();

  /**
   * Counts what is waiting or stuck, at this instance's clock: pending intents, messages per queue
   * and state, dead letters, external claims per state, and the oldest pending intent and due
   * message. The same figures as {@link #status()}, without its counts of receipts, intents and
   * rejections, which read every row the store has kept: this is the read for something polled
   * (gauges, a health check), whose cost then follows the work outstanding rather than the receipts
   * written. The default reads {@link #status()}; the store's own implementation reads only these
   * tables.
   *
   * @return an immutable snapshot of the backlog
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  default Backlog backlog() {
    return Backlog.of(status());
  }

  /**
   * Returns the intent registered longest ago that still has no receipt.
   *
   * @return its key, registration time and age, or empty when every intent has a receipt
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  Optional<StoreStatus.PendingIntent> oldestPending();

  /**
   * Returns how long the message that has been due longest has waited, over every queue.
   *
   * @return the age of the oldest due message, or empty when no message is due
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  Optional<Duration> oldestDueAge();

  /** The most minutes {@link #deadLetteredPerMinute} counts: one day. */
  int MAX_MINUTES = 1440;

  /**
   * {@return the instant this store's clock reads now: every age this view reports is measured from
   * it}
   */
  Instant now();

  /**
   * Counts the dead letters kept per minute of their dead-lettering: the {@code minutes} whole
   * minutes of this store's clock that end with the minute under way. It reads the rows, so it
   * survives restarts and sees every instance on the database; a dead letter deleted, purged or
   * requeued since no longer counts. One index range per minute.
   *
   * @param minutes how many minutes, 1 to {@link #MAX_MINUTES}
   * @return the counts, oldest minute first
   * @throws IllegalArgumentException if {@code minutes} is out of bounds
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  PerMinute deadLetteredPerMinute(int minutes);

  /**
   * Lists one page of the queues that hold messages or dead letters, the deepest first (most
   * messages, then most dead letters, then by name), with their counts at this instance's clock and
   * how many queues match in all. The database groups, sorts and cuts the page ({@code LIMIT}), so
   * a store of many queues returns no more than {@code limit} rows; it still groups every queue's
   * rows (from its indexes) to know which are deepest.
   *
   * @param nameContains only queues whose name holds this text exactly (case counts, no pattern
   *     characters), or {@code ""} for every queue
   * @param offset how many queues of that order to skip, 0 or more
   * @param limit the most to return, 1 to {@link #MAX_BATCH}
   * @return the page and the total
   * @throws IllegalArgumentException if {@code offset} is negative or {@code limit} out of bounds
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  QueuePage queues(String nameContains, long offset, int limit);

  /**
   * Lists dead letters newest first (ties in queue and key order), without their payloads.
   *
   * @param queue only this queue, or {@code null} for every queue
   * @param limit the most to return, 1 to {@link #MAX_BATCH}
   * @return the dead letters, newest first
   * @throws IllegalArgumentException if {@code limit} is out of bounds
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  List<DeadLetterSummary> recentDeadLetters(String queue, int limit);

  /**
   * Lists one page of dead letters newest first (ties in queue and key order), without their
   * payloads: the rows {@code offset} to {@code offset + limit - 1} of {@link
   * #recentDeadLetters(String, int)}'s order. Pages read at different moments may skip or repeat a
   * row when dead letters arrive or leave between them.
   *
   * @param queue only this queue, or {@code null} for every queue
   * @param offset how many rows of that order to skip, 0 or more
   * @param limit the most to return, 1 to {@link #MAX_BATCH}
   * @return the dead letters of that page, newest first
   * @throws IllegalArgumentException if {@code offset} is negative or {@code limit} out of bounds
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  List<DeadLetterSummary> recentDeadLetters(String queue, long offset, int limit);

  /**
   * Deletes one dead letter, with its stored payload when no message or other dead letter still
   * refers to it, in one write transaction. To run it again instead, use {@link
   * dev.onceonly.queue.JobQueue#requeue}.
   *
   * @param queue its queue
   * @param key the message's key
   * @return whether a dead letter was there and is now deleted
   * @throws dev.onceonly.StoreException if the database fails; then nothing is deleted
   */
  boolean deleteDeadLetter(String queue, String key);

  /**
   * Deletes one dead letter, as {@link #deleteDeadLetter(String, String)} does, only if it is still
   * the one that was listed: the dead letter of that key dead-lettered at {@code deadAt} ({@link
   * DeadLetterSummary#deadAt()}). An action confirmed on a list thus deletes nothing the list did
   * not show, such as a later dead letter of the same key.
   *
   * @param queue its queue
   * @param key the message's key
   * @param deadAt when the listed dead letter was dead-lettered, as the list gave it
   * @return whether that dead letter was there and is now deleted; false if it is gone (deleted,
   *     requeued, or replaced by a later one of the key)
   * @throws dev.onceonly.StoreException if the database fails; then nothing is deleted
   */
  boolean deleteDeadLetter(String queue, String key, Instant deadAt);

  /**
   * Lists the live leases of one queue, the one that ends first first: messages claimed by a
   * receiver (of any instance on the database) whose lease has not run out at this instance's
   * clock, and which no one has completed, retried or released since. A receiver that died holds
   * its leases until they end; meanwhile they count against the queue's concurrency limit.
   *
   * @param queue the queue's name
   * @param limit the most to return, 1 to {@link #MAX_BATCH}
   * @return the leases, by the end of each
   * @throws IllegalArgumentException if {@code limit} is out of bounds
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  List<LiveLease> liveLeases(String queue, int limit);

  /**
   * Counts one queue's messages by priority and by partition, in one read transaction at this
   * instance's clock: for each group its due, leased and delayed messages, as {@link #status()}
   * counts the whole queue. The limits in force are the queue's to say: {@link
   * dev.onceonly.queue.JobQueue#limits}.
   *
   * @param queue the queue's name
   * @param partitions the most partition groups to return, the deepest first, 1 to {@link
   *     #MAX_BATCH}; {@link QueueBreakdown#partitions()} counts them all
   * @return the counts; empty lists for a queue without messages
   * @throws IllegalArgumentException if {@code partitions} is out of bounds
   * @throws UnsupportedOperationException on a database that does not carry the job queue (MariaDB)
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  QueueBreakdown queueBreakdown(String queue, int partitions);

  /**
   * Finds the message of one key that waits in a queue or is in flight, with its payload, attempts,
   * lease and next attempt, at this instance's clock. The key is matched exactly, whatever
   * characters it holds, so a message written by another writer is found too.
   *
   * @param queue the queue's name
   * @param key the message's key
   * @return the message, or empty when none of that key waits or is in flight (acknowledged,
   *     withdrawn, dead-lettered, or never sent)
   * @throws UnsupportedOperationException on a database that does not carry the job queue (MariaDB)
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  Optional<QueuedMessage> findMessage(String queue, String key);

  /**
   * Lists one page of a queue's messages that wait or are in flight, in the order they were sent
   * (by id), without their payloads: those with an id above {@code afterId}. Pages are keyed by id,
   * so a message sent or acknowledged between two reads neither shifts nor repeats the others.
   *
   * @param queue the queue's name
   * @param afterId the last id of the previous page, 0 for the first page
   * @param limit the most to return, 1 to {@link #MAX_BATCH}
   * @return the messages, by id
   * @throws IllegalArgumentException if {@code afterId} is negative or {@code limit} out of bounds
   * @throws UnsupportedOperationException on a database that does not carry the job queue (MariaDB)
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  List<MessageSummary> messages(String queue, long afterId, int limit);

  /**
   * Reads the schema version recorded in the database, without creating or changing anything.
   *
   * @return the version found (0 when there is no schema under this prefix) and the version this
   *     library needs
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  SchemaVersion schemaVersion();

  /**
   * Reads, from the settings of the server this store writes to, whether it keeps what it answers:
   * through a crash of the server, and through a failover to a standby. Read on a connection of the
   * store, so a setting changed for its role or database counts.
   *
   * @return the settings read and what may be lost
   * @throws dev.onceonly.StoreException if the database cannot be read
   */
  Durability durability();

  /**
   * Applies receipt retention until nothing is left to do: results past their expiry become
   * tombstones (the fingerprint is kept), tombstones past their own retention are deleted with
   * their intents. Each batch is one write transaction of at most {@code batchSize} receipts, the
   * same work as {@link dev.onceonly.ReceiptStore#purge(int)}.
   *
   * @param batchSize receipts per transaction, 1 to {@link #MAX_BATCH}
   * @param progress called after each batch that touched rows with the running total; may be a
   *     no-op
   * @return how many receipts became tombstones and how many were deleted
   * @throws IllegalArgumentException if {@code batchSize} is out of bounds
   * @throws dev.onceonly.StoreException if a batch fails; earlier batches stay committed
   */
  ReceiptPurge purgeReceipts(int batchSize, LongConsumer progress);

  /**
   * Deletes rejections recorded more than {@code olderThan} ago, in batches of one transaction
   * each.
   *
   * @param olderThan the age past which a rejection goes; zero deletes every rejection recorded
   *     before now
   * @param batchSize rows per transaction, 1 to {@link #MAX_BATCH}
   * @param progress called after each batch that deleted rows with the running total
   * @return how many rejections were deleted
   * @throws IllegalArgumentException if {@code olderThan} is negative or {@code batchSize} out of
   *     bounds
   * @throws dev.onceonly.StoreException if a batch fails; earlier batches stay committed
   */
  long purgeRejections(Duration olderThan, int batchSize, LongConsumer progress);

  /**
   * Deletes dead letters that died more than {@code olderThan} ago, with their stored payloads when
   * no message or other dead letter still refers to them, in batches of one transaction each.
   *
   * @param olderThan the age past which a dead letter goes; zero deletes every one dead before now
   * @param batchSize rows per transaction, 1 to {@link #MAX_BATCH}
   * @param progress called after each batch that deleted rows with the running total
   * @return how many dead letters were deleted
   * @throws IllegalArgumentException if {@code olderThan} is negative or {@code batchSize} out of
   *     bounds
   * @throws dev.onceonly.StoreException if a batch fails; earlier batches stay committed
   */
  long purgeDeadLetters(Duration olderThan, int batchSize, LongConsumer progress);

  /**
   * Deletes workflow runs that finished (completed, failed or cancelled) more than {@code
   * olderThan} ago, with their steps, in batches of one transaction each ({@link
   * dev.onceonly.workflow.Workflows#purgeFinished}); running and compensating runs stay. Once
   * deleted, a run's id may be started again.
   *
   * @param olderThan the age past which a finished run goes; zero deletes every run finished before
   *     now
   * @param batchSize runs per transaction, 1 to {@link #MAX_BATCH} (a transaction deletes at most
   *     1,000 runs; a larger batch is taken 1,000 at a time)
   * @param progress called after each batch that deleted runs with the running total
   * @return how many runs were deleted
   * @throws IllegalArgumentException if {@code olderThan} is negative or {@code batchSize} out of
   *     bounds
   * @throws dev.onceonly.StoreException if a batch fails; earlier batches stay committed
   */
  long purgeWorkflows(Duration olderThan, int batchSize, LongConsumer progress);

  /**
   * Applies the pending schema migrations in one write transaction (a PostgreSQL migration lock
   * keeps instances migrating at once from racing). A current schema is only read, so a role
   * without the right to create tables may call this.
   *
   * @param applied called with each version as its script is applied, inside the transaction: if
   *     the transaction fails, the versions it reported are not applied
   * @return the versions before and after
   * @throws dev.onceonly.SchemaVersionException if the database holds a newer schema than this
   *     library knows
   * @throws dev.onceonly.StoreException if a script fails; then nothing is applied
   */
  Migration migrate(IntConsumer applied);

  /**
   * Audits the store against the application's own rows: with an effects query, every effect has
   * exactly one receipt of the operation and every live receipt its effect; and always, nothing
   * registered waits longer than the bound and no lease (of a message or an external-effect claim)
   * ran out longer ago than the grace without being taken over. Reads only, in one read
   * transaction; the effects query's rows and the operation's receipt keys are held in memory.
   *
   * <p>A message counts as leased from its claim until it is retried, rescheduled or released, as
   * in {@link #status()}, so a lease taken over after an expiry is checked like the first.
   *
   * @param rules what to check
   * @return the findings
   * @throws IllegalArgumentException if the effects query fails or does not return 2 or 3 columns
   * @throws dev.onceonly.StoreException if the database fails
   */
  Audit.Report audit(Audit.Rules rules);

  /**
   * A dead letter as {@link #recentDeadLetters} lists it.
   *
   * @param queue its queue
   * @param key the message's key
   * @param attempts how many deliveries it had
   * @param lastError the last failure, bounded, or {@code null}
   * @param deadAt when it was dead-lettered
   */
  record DeadLetterSummary(
      String queue, String key, int attempts, String lastError, Instant deadAt) {
    /**
     * Refuses nulls other than the error.
     *
     * @param queue its queue
     * @param key the message's key
     * @param attempts how many deliveries it had
     * @param lastError the last failure, bounded, or {@code null}
     * @param deadAt when it was dead-lettered
     */
    public DeadLetterSummary {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(deadAt, "deadAt");
    }
  }

  /**
   * Counts per minute, as {@link #deadLetteredPerMinute} returns them.
   *
   * @param start the start of the first minute
   * @param counts one count per minute, oldest first; the last is the minute under way
   */
  record PerMinute(Instant start, List<Long> counts) {
    /**
     * Checks the fields and copies the counts.
     *
     * @param start the start of the first minute
     * @param counts one count per minute, oldest first; the last is the minute under way
     */
    public PerMinute {
      Objects.requireNonNull(start, "start");
      counts = List.copyOf(counts);
    }
  }

  /**
   * A message as {@link #messages} lists it.
   *
   * @param queue its queue
   * @param key its key
   * @param id its id in the queue table
   * @param state due, leased or delayed, at the store's clock when it was read
   * @param attempts how many deliveries it had
   * @param nextAttemptAt when it is due: the end of its lease while leased
   * @param priority its priority
   * @param partition its partition, or {@code null} for none
   */
  record MessageSummary(
      String queue,
      String key,
      long id,
      QueuedMessage.State state,
      int attempts,
      Instant nextAttemptAt,
      int priority,
      String partition) {
    /**
     * Refuses nulls other than the partition.
     *
     * @param queue its queue
     * @param key its key
     * @param id its id in the queue table
     * @param state due, leased or delayed
     * @param attempts how many deliveries it had
     * @param nextAttemptAt when it is due
     * @param priority its priority
     * @param partition its partition, or {@code null} for none
     */
    public MessageSummary {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
    }
  }

  /**
   * A message's lease as {@link #liveLeases} lists it.
   *
   * @param queue its queue
   * @param key the message's key
   * @param messageId the message's id in the queue table
   * @param attempts how many deliveries it had, this one included
   * @param until when the lease ends and the message is due again
   */
  record LiveLease(String queue, String key, long messageId, int attempts, Instant until) {
    /**
     * Refuses nulls.
     *
     * @param queue its queue
     * @param key the message's key
     * @param messageId the message's id in the queue table
     * @param attempts how many deliveries it had, this one included
     * @param until when the lease ends and the message is due again
     */
    public LiveLease {
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(until, "until");
    }
  }

  /**
   * What a receipt purge did.
   *
   * @param tombstoned results dropped, fingerprints kept
   * @param deleted tombstones (and their intents) removed
   */
  record ReceiptPurge(long tombstoned, long deleted) {
    /**
     * Checks the counts.
     *
     * @param tombstoned results dropped, fingerprints kept
     * @param deleted tombstones (and their intents) removed
     */
    public ReceiptPurge {
      if (tombstoned < 0 || deleted < 0) {
        throw new IllegalArgumentException("counts must be >= 0");
      }
    }
  }

  /**
   * What {@link #migrate} did.
   *
   * @param before the version found, 0 for a database without the schema
   * @param after the version now recorded
   */
  record Migration(int before, int after) {
    /** {@return whether any script was applied} */
    public boolean changed() {
      return before != after;
    }
  }

  /**
   * A schema version as found and as needed.
   *
   * @param found the version recorded in the database, 0 when there is none under the prefix
   * @param required the version this library needs
   */
  record SchemaVersion(int found, int required) {
    /**
     * Checks the versions.
     *
     * @param found the version recorded in the database, 0 when there is none under the prefix
     * @param required the version this library needs
     */
    public SchemaVersion {
      if (found < 0 || required < 1) {
        throw new IllegalArgumentException("found must be >= 0 and required >= 1");
      }
    }

    /** {@return whether the schema is exactly the version this library needs} */
    public boolean isCurrent() {
      return found == required;
    }
  }
}
