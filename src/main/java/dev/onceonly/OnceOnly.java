package dev.onceonly;

import dev.onceonly.events.Events;
import dev.onceonly.external.ExternalEffects;
import dev.onceonly.external.ProbePolicy;
import dev.onceonly.external.StatusProbe;
import dev.onceonly.internal.db.CallerTransactions;
import dev.onceonly.internal.db.Database;
import dev.onceonly.internal.db.DatabaseClock;
import dev.onceonly.internal.db.Migrator;
import dev.onceonly.internal.external.SqlExternalEffects;
import dev.onceonly.internal.maintenance.SqlMaintenance;
import dev.onceonly.internal.queue.QueueSignals;
import dev.onceonly.internal.queue.RateLimits;
import dev.onceonly.internal.queue.SendNotifications;
import dev.onceonly.internal.queue.SqlJobQueue;
import dev.onceonly.internal.receipts.SqlIntentStore;
import dev.onceonly.internal.receipts.SqlReceiptStore;
import dev.onceonly.internal.receipts.SqlRejectionStore;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.internal.workflow.SqlWorkflows;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.Schedules;
import dev.onceonly.queue.Uniqueness;
import dev.onceonly.sql.Dialect;
import dev.onceonly.workflow.Workflows;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The entry point: opens a store, applies its schema migrations and hands out the {@link
 * IntentStore}, {@link ReceiptStore} and {@link RejectionStore} that share it.
 *
 * <pre>{@code
 * try (OnceOnly once = OnceOnly.openSqlite(Path.of("app.db"))) {
 *   Outcome<Ticket> outcome = once.receipts().execute(
 *       IntentKey.of(userId, requestKey), "create_ticket", Map.of("subject", subject),
 *       Ticket.class, tx -> tickets.insert(tx, subject));
 * }
 * }</pre>
 *
 * <p>Thread-safe; open one per database and share it. Closing it closes the connections it opened
 * itself, never a caller's {@link DataSource} or {@link Connection}.
 */
public final class OnceOnly implements AutoCloseable {
  /** Default table prefix. */
  public static final String DEFAULT_TABLE_PREFIX = "onceonly_";

  /** Default pattern for scopes: 1 to 128 of letters, digits and {@code . _ : @ -}. */
  public static final String DEFAULT_SCOPE_PATTERN = "[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}";

  /** Default pattern for keys: 1 to 128 of letters, digits and {@code . _ : -}. */
  public static final String DEFAULT_KEY_PATTERN = "[A-Za-z0-9][A-Za-z0-9._:-]{0,127}";

  private final Database database;
  private final SqlIntentStore intents;
  private final SqlReceiptStore receipts;
  private final SqlRejectionStore rejections;
  private final SqlJobQueue queue;
  private final SqlExternalEffects externalEffects;
  private final DatabaseClock databaseClock;
  private final SendNotifications notifications;
  private final SqlMaintenance maintenance;
  private final SqlWorkflows workflows;
  private final Events events;

  OnceOnly(
      Database database,
      StoreContext core,
      String prefix,
      Set<String> safeToRepeat,
      Map<String, StatusProbe> statusProbes,
      ProbePolicy probePolicy,
      Map<String, Uniqueness> uniqueness,
      Map<String, Integer> limits,
      Map<String, Integer> partitionLimits,
      RateLimits rateLimits,
      DatabaseClock databaseClock,
      DataSource listenFor,
      Migrator migrator,
      String description) {
    this.database = database;
    this.databaseClock = databaseClock;
    this.events = core.events();
    QueueSignals signals = new QueueSignals();
    this.notifications =
        listenFor == null ? null : SendNotifications.start(prefix, listenFor, signals);
    this.intents = new SqlIntentStore(core);
    this.receipts = new SqlReceiptStore(core);
    this.rejections = new SqlRejectionStore(core);
    this.queue =
        new SqlJobQueue(
            core,
            prefix,
            RetryPolicy.defaults(),
            signals,
            listenFor == null ? null : SendNotifications.channel(prefix),
            uniqueness,
            limits,
            partitionLimits,
            rateLimits);
    this.externalEffects =
        new SqlExternalEffects(
            core, prefix, RetryPolicy.defaults(), safeToRepeat, statusProbes, probePolicy);
    this.workflows = new SqlWorkflows(core, prefix, queue);
    this.maintenance =
        new SqlMaintenance(
            database, prefix, core.clock(), receipts, migrator, workflows, description);
  }

  /**
   * Opens (creating if needed) an embedded SQLite store with the default settings.
   *
   * @param file the database file; its folder must exist and be on a local file system
   * @return the open store, migrated to the current schema
   * @throws StoreException if the file cannot be opened or migrated
   */
  public static OnceOnly openSqlite(Path file) {
    return builder().sqlite(file).build();
  }

  /** {@return a builder with the default settings} */
  public static OnceOnlyBuilder builder() {
    return new OnceOnlyBuilder();
  }

  /** {@return the intent store} */
  public IntentStore intents() {
    return intents;
  }

  /** {@return the receipt store} */
  public ReceiptStore receipts() {
    return receipts;
  }

  /** {@return the rejection store} */
  public RejectionStore rejections() {
    return rejections;
  }

  /** {@return the job queue, retrying failed messages with {@link RetryPolicy#defaults()}} */
  public JobQueue queue() {
    return queue;
  }

  /**
   * Returns the job queue with another retry policy. Views share the tables and the in-process
   * wake-ups.
   *
   * @param policy the retry policy for {@link JobQueue#nack} and the attempt limit of {@link
   *     JobQueue#receive}
   * @return the queue
   */
  public JobQueue queue(RetryPolicy policy) {
    return queue.withPolicy(policy);
  }

  /**
   * Returns the recurring schedules: messages sent to a queue on every slot of a cron expression, a
   * fixed rate or a fixed delay, once per slot across instances and restarts, fired by the claims
   * of the queue they send to (so a {@link dev.onceonly.queue.Worker} serving it runs them).
   *
   * @return the schedules of this store
   */
  public Schedules schedules() {
    return queue.schedules();
  }

  /**
   * Returns the workflows: named graphs of steps run by the workers of their queues, each step
   * once, on this store's tables (see {@code docs/workflows.md}).
   *
   * @return the workflows of this store
   */
  public Workflows workflows() {
    return workflows;
  }

  /**
   * Returns the external effects (claims under fenced leases for effects that leave the database),
   * retrying failed attempts with {@link RetryPolicy#defaults()}.
   *
   * @return the external effects of this store
   */
  public ExternalEffects externalEffects() {
    return externalEffects;
  }

  /**
   * Returns the external effects with another retry policy for failed attempts. Views share the
   * table.
   *
   * @param policy the retry policy for {@link ExternalEffects#fail} and for taking over expired
   *     claims of operations safe to repeat
   * @return the external effects
   */
  public ExternalEffects externalEffects(RetryPolicy policy) {
    return externalEffects.withPolicy(policy);
  }

  /**
   * Runs the caller's own database work in one of this store's write transactions and commits it,
   * so that the caller's writes, its {@link JobQueue#send(Connection, dev.onceonly.queue.Message)
   * sends} and its joined {@link ReceiptStore#execute(Connection, IntentKey, String, Object, Class,
   * Effect) steps} commit together or not at all (an outbox in one call):
   *
   * <pre>{@code
   * long id = once.inTransaction(tx -> {
   *   long user = users.insert(tx, name);
   *   once.queue().send(tx, Message.of("user-tasks", "welcome-" + user, Map.of("user", user)))
   *       .orThrow();
   *   return user;
   * });
   * }</pre>
   *
   * <p>On SQLite the work runs on the store's single writer connection, inside its {@code BEGIN
   * IMMEDIATE} transaction and possibly a group commit shared with other callers' steps (under its
   * own savepoint, so that a failing work rolls back alone); under contention it may run on another
   * caller's thread, so it must use only the connection it is given. No second connection, no
   * {@code busy_timeout} of the caller's own. On PostgreSQL through a data source it runs on a
   * pooled connection in one transaction.
   *
   * <p>The work gets the transaction's connection guarded as an effect's is (see {@link Effect}):
   * it must not commit, roll back or close it (refused with {@link ConnectionMisuseException}, and
   * the transaction rolled back), nor call a method of this store that opens a transaction of its
   * own ({@link IllegalStateException}); it joins with the forms that take the connection.
   *
   * <p><b>The work may run more than once</b>: on PostgreSQL through a data source, a transaction
   * the server aborts with a serialization failure or a deadlock ({@code 40001}, {@code 40P01}) is
   * run again, up to five times in all; each earlier run was rolled back, and the final failure
   * carries the earlier ones as suppressed. So the work must do nothing outside the transaction (no
   * network call, no change to shared memory it cannot repeat). On SQLite it runs once.
   *
   * @param work the caller's work; it receives the transaction's connection
   * @param <T> what the work returns
   * @param <X> the work's exception type
   * @return what the work returned, once the transaction has committed
   * @throws X what the work threw, unwrapped; nothing of the transaction was committed
   * @throws ConnectionMisuseException if the work tried to end or reconfigure the transaction
   * @throws StoreException if the database fails; nothing was committed
   */
  public <T, X extends Exception> T inTransaction(TransactionCallback<T, X> work) throws X {
    Objects.requireNonNull(work, "work");
    return CallerTransactions.run(database, work::inTransaction);
  }

  /**
   * Runs the caller's own database work in one of this store's write transactions and commits it,
   * as {@link #inTransaction} does, for work that returns nothing. The work may run more than once
   * on PostgreSQL (see {@link #inTransaction}).
   *
   * @param work the caller's work; it receives the transaction's connection
   * @param <X> the work's exception type
   * @throws X what the work threw, unwrapped; nothing of the transaction was committed
   * @throws ConnectionMisuseException if the work tried to end or reconfigure the transaction
   * @throws StoreException if the database fails; nothing was committed
   */
  public <X extends Exception> void useTransaction(TransactionConsumer<X> work) throws X {
    Objects.requireNonNull(work, "work");
    CallerTransactions.run(
        database,
        tx -> {
          work.useTransaction(tx);
          return null;
        });
  }

  /**
   * The caller's work for {@link #inTransaction}.
   *
   * @param <T> what the work returns
   * @param <X> the exception type the work may throw
   */
  @FunctionalInterface
  public interface TransactionCallback<T, X extends Exception> {
    /**
     * Runs inside the transaction.
     *
     * @param transaction the transaction's connection, guarded: it cannot be committed, rolled back
     *     or closed
     * @return the work's result
     * @throws X if the work fails; the transaction is rolled back
     */
    T inTransaction(Connection transaction) throws X;
  }

  /**
   * The caller's work for {@link #useTransaction}.
   *
   * @param <X> the exception type the work may throw
   */
  @FunctionalInterface
  public interface TransactionConsumer<X extends Exception> {
    /**
     * Runs inside the transaction.
     *
     * @param transaction the transaction's connection, guarded: it cannot be committed, rolled back
     *     or closed
     * @throws X if the work fails; the transaction is rolled back
     */
    void useTransaction(Connection transaction) throws X;
  }

  /**
   * Returns the maintenance operations for operators: counts per table and state, the schema
   * version, retention in bounded batches and migrations. The {@code onceonly} command-line tool is
   * built on them.
   *
   * @return the maintenance operations of this store, thread-safe
   */
  public Maintenance maintenance() {
    return maintenance;
  }

  /**
   * Returns where this instance publishes its events, for the workers and reconcilers built on it
   * (they find it through {@link JobQueue#events()} on their own) and for {@link Events#dropped()}.
   *
   * @return the events; {@link Events#none()} when no listener was registered
   */
  public Events events() {
    return events;
  }

  /** {@return the dialect in use} */
  public Dialect dialect() {
    return database.dialect();
  }

  /** Closes the connections this instance opened; a caller's data source stays open. */
  @Override
  public void close() {
    if (notifications != null) {
      notifications.close();
    }
    if (databaseClock != null) {
      databaseClock.close();
    }
    database.close();
    events.close();
  }

  /** SQLite's {@code synchronous} setting for files this library opens. */
  public enum Synchronous {
    /** Every commit is durable when it returns, even after power loss. The default. */
    FULL,
    /**
     * In WAL mode, a commit survives a crash of the process but the last ones may be lost on power
     * loss or an operating system crash. Faster; choose it knowingly.
     */
    NORMAL
  }

  /** SQLite's {@code journal_mode} for files this library opens. */
  public enum JournalMode {
    /**
     * Write-ahead log: readers never wait for the writer, and commits are cheap. The default.
     * SQLite then keeps its WAL index in the {@code -shm} file through a shared memory mapping; if
     * that file becomes unwritable under an open store ({@code chattr +i}), the kernel answers the
     * next write to the mapping with SIGBUS and the whole JVM dies instead of one step failing.
     */
    WAL,
    /**
     * Rollback journal ({@code journal_mode=DELETE}): no shared memory mapping, so files that
     * become unwritable under an open store fail the next write with a {@link StoreException}
     * ({@code SQLITE_IOERR_WRITE}), nothing half-written, and the store works again once they are
     * writable. Readers wait while a commit completes. The journal mode belongs to the file: every
     * process that opens it must choose this, or the first one opening it in WAL switches it back.
     */
    DELETE
  }

  /**
   * Whether {@link OnceOnlyBuilder#build()} applies the schema migrations or only checks the
   * version.
   */
  public enum Migrations {
    /**
     * Creates the tables, or brings them to this library's version, on open. The default. On a
     * schema already current it runs no DDL (only the migration lock and a read of the version, in
     * a write transaction), so then no right to create tables is needed.
     */
    APPLY,
    /**
     * Creates and changes nothing: the schema must already be this library's version, applied by
     * Flyway, Liquibase or {@code onceonly migrate} from the scripts under {@code
     * dev/onceonly/sql/<dialect>/}. A missing, older or newer schema fails the open with a {@link
     * SchemaVersionException} that names the scripts to apply. For applications whose database role
     * may only read and write rows.
     */
    VALIDATE,
    /**
     * Reads and changes nothing at open: for maintenance tools, which read {@link
     * Maintenance#schemaVersion()} and call {@link Maintenance#migrate} themselves. The stores of
     * an instance opened so fail with a {@link StoreException} while the schema is not current.
     */
    NONE
  }
}
