package dev.onceonly;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.OnceOnly.JournalMode;
import dev.onceonly.OnceOnly.Migrations;
import dev.onceonly.OnceOnly.Synchronous;
import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyListener;
import dev.onceonly.external.ExternalEffects;
import dev.onceonly.external.ProbePolicy;
import dev.onceonly.external.StatusProbe;
import dev.onceonly.internal.db.Database;
import dev.onceonly.internal.db.DatabaseClock;
import dev.onceonly.internal.db.Databases;
import dev.onceonly.internal.db.DurabilityCheck;
import dev.onceonly.internal.db.Migrator;
import dev.onceonly.internal.db.SqliteFiles;
import dev.onceonly.internal.queue.RateLimits;
import dev.onceonly.internal.receipts.Mappers;
import dev.onceonly.internal.receipts.RequestPreparer;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.RateLimit;
import dev.onceonly.queue.Uniqueness;
import dev.onceonly.sql.Dialect;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Configures and opens a {@link OnceOnly}: {@code OnceOnly.builder()}, its options, then {@link
 * #build()}. Not thread-safe.
 */
public final class OnceOnlyBuilder {
  private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,30}");

  private Path sqliteFile;
  private DataSource dataSource;
  private Connection connection;
  private Dialect dialect;
  private String tablePrefix = OnceOnly.DEFAULT_TABLE_PREFIX;
  private InstantSource clock;
  private Canonicalizer canonicalizer = Canonicalizer.defaults();
  private ObjectMapper mapper;
  private Duration resultRetention = Duration.ofDays(30);
  private Duration tombstoneRetention = Duration.ofDays(365);
  private String scopePattern = OnceOnly.DEFAULT_SCOPE_PATTERN;
  private String keyPattern = OnceOnly.DEFAULT_KEY_PATTERN;
  private final Map<String, ArgumentsValidator> validators = new HashMap<>();
  private final Map<String, OperationRules> operationRules = new HashMap<>();
  private final Set<String> safeToRepeat = new HashSet<>();
  private final Map<String, StatusProbe> statusProbes = new HashMap<>();
  private ProbePolicy probePolicy = ProbePolicy.defaults();
  private final Map<String, Uniqueness> uniqueness = new HashMap<>();
  private final Map<String, Integer> limits = new HashMap<>();
  private final Map<String, Integer> partitionLimits = new HashMap<>();
  private final Map<String, RateLimit> rateLimits = new HashMap<>();
  private final Map<String, RateLimit> partitionRateLimits = new HashMap<>();
  private int rejectionReasonChars = 300;
  private int rejectionBodyBytes = 8192;
  private int attemptErrorsKept = dev.onceonly.queue.AttemptError.DEFAULT_KEPT;
  private Duration busyTimeout = Duration.ofSeconds(5);
  private Synchronous synchronous = Synchronous.FULL;
  private int groupCommitMaxBatch = 64;
  private Duration groupCommitMaxWait = Duration.ZERO;
  private DataSource listenForSends;
  private Migrations migrations = Migrations.APPLY;
  private JournalMode journalMode = JournalMode.WAL;
  private CurrentTransaction currentTransaction;
  private final List<OnceOnlyListener> listeners = new ArrayList<>();
  private boolean listenerSeesScopes;
  private int listenerBuffer = Events.DEFAULT_CAPACITY;
  private TraceContext traceContext = TraceContext.none();
  private boolean requireSynchronousReplication;

  OnceOnlyBuilder() {}

  /**
   * Adds a listener for the events of this instance: steps, sends, claims, settlements, group
   * commits, and those of the workers and reconcilers built on it. Listeners run on one daemon
   * thread of the instance, after the work they hear about has returned, never inside a
   * transaction; a listener that throws or blocks changes no outcome and slows no step (see {@link
   * Events}). Default: none, and then nothing is measured at all.
   *
   * @param listener the listener, for example {@code dev.onceonly.micrometer.OnceOnlyMetrics}
   * @return this builder
   */
  public OnceOnlyBuilder listener(OnceOnlyListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return this;
  }

  /**
   * Sets whether step events carry the key's scope ({@link
   * dev.onceonly.events.OnceOnlyEvent.StepFinished#scope()}). Default false: a scope is often a
   * user or a tenant, too many values for a metric tag and possibly personal data.
   *
   * @param seesScopes whether to publish scopes
   * @return this builder
   */
  public OnceOnlyBuilder listenerSeesScopes(boolean seesScopes) {
    this.listenerSeesScopes = seesScopes;
    return this;
  }

  /**
   * Sets how many events may wait for slow listeners before further ones are dropped (and counted,
   * {@link Events#dropped()}). Default {@link Events#DEFAULT_CAPACITY}.
   *
   * @param events 1 to 1,048,576
   * @return this builder
   * @throws IllegalArgumentException if out of bounds
   */
  public OnceOnlyBuilder listenerBuffer(int events) {
    if (events <= 0 || events > (1 << 20)) {
      throw new IllegalArgumentException("listenerBuffer must be between 1 and 1048576");
    }
    this.listenerBuffer = events;
    return this;
  }

  /**
   * Sets where a send or an intent registration finds the current trace context, stored with the
   * message (and kept if it is dead-lettered and requeued) and handed to its handler ({@link
   * dev.onceonly.queue.Delivery#traceparent()}), or stored with the intent ({@link
   * Intent#traceparent()}). Default {@link TraceContext#none()}; {@code
   * dev.onceonly.otel.OnceOnlyTracing} supplies OpenTelemetry's.
   *
   * @param traceContext the supplier of the sending thread's {@code traceparent}
   * @return this builder
   */
  public OnceOnlyBuilder traceContext(TraceContext traceContext) {
    this.traceContext = Objects.requireNonNull(traceContext, "traceContext");
    return this;
  }

  /**
   * Stores in an embedded SQLite file, opened by this library in {@link #journalMode} (WAL unless
   * set) with {@code busy_timeout} and {@link #synchronous}. Never put it on a network file system.
   *
   * @param file the database file (created if missing)
   * @return this builder
   */
  public OnceOnlyBuilder sqlite(Path file) {
    this.sqliteFile = Objects.requireNonNull(file, "file");
    return this;
  }

  /**
   * Stores through a caller's data source (a pool, usually), one connection per step. The dialect
   * is detected from the first connection unless set.
   *
   * @param dataSource the data source; not closed by {@link OnceOnly#close()}
   * @return this builder
   */
  public OnceOnlyBuilder dataSource(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    return this;
  }

  /**
   * Stores through one caller's connection, used by one step at a time.
   *
   * @param connection the connection; not closed by {@link OnceOnly#close()}
   * @return this builder
   */
  public OnceOnlyBuilder connection(Connection connection) {
    this.connection = Objects.requireNonNull(connection, "connection");
    return this;
  }

  /**
   * On PostgreSQL, wakes this instance's idle workers as soon as any instance sends to their queue,
   * instead of at their next poll. Every send then also issues {@code NOTIFY} in its transaction
   * (one more statement per message), and a thread of this instance holds {@code LISTEN} on a
   * connection from {@code direct}. Optional, and only a hint: polling still delivers everything.
   * Every instance that sends must set it for its sends to wake others.
   *
   * @param direct where the listening connection comes from: a direct connection to the server (not
   *     through PgBouncer's transaction pooling, which cannot hold a {@code LISTEN}); one
   *     connection is held open until {@link OnceOnly#close()}
   * @return this builder
   */
  public OnceOnlyBuilder listenForSends(DataSource direct) {
    this.listenForSends = Objects.requireNonNull(direct, "direct");
    return this;
  }

  /**
   * Lets calls made without a connection take part in the transaction the calling thread is already
   * in, found by {@code source} (Spring's, through {@code
   * dev.onceonly.spring.SpringCurrentTransaction}): the caller's own writes, a receipts step and a
   * send then commit together or not at all, with no {@link Connection} in the caller's code. Which
   * calls join, and what {@link Outcome.Created} means then: {@link CurrentTransaction}. Default:
   * none, every call runs in a transaction of its own. Needs a {@link #dataSource}, the one the
   * caller's transactions run on.
   *
   * @param source finds the calling thread's transaction on this store's data source
   * @return this builder
   */
  public OnceOnlyBuilder currentTransaction(CurrentTransaction source) {
    this.currentTransaction = Objects.requireNonNull(source, "source");
    return this;
  }

  /**
   * Sets the dialect instead of detecting it from the connection's metadata.
   *
   * @param dialect the dialect
   * @return this builder
   */
  public OnceOnlyBuilder dialect(Dialect dialect) {
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    return this;
  }

  /**
   * Sets the prefix of every table name. Default {@code onceonly_}.
   *
   * @param prefix 1 to 31 of lowercase letters, digits and underscores, starting with a letter
   * @return this builder
   * @throws IllegalArgumentException if the prefix is not of that form
   */
  public OnceOnlyBuilder tablePrefix(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (!PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException("tablePrefix must match " + PREFIX + ": " + prefix);
    }
    this.tablePrefix = prefix;
    return this;
  }

  /**
   * Sets the clock for receipts, retention and leases. Default: on PostgreSQL through a {@link
   * #dataSource}, the server's clock (this machine's clock plus an offset to {@code
   * clock_timestamp()}, measured at open and every few seconds after), so that every instance
   * judges leases on one time base; otherwise the system clock.
   *
   * @param clock the clock
   * @return this builder
   */
  public OnceOnlyBuilder clock(InstantSource clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * Sets the canonicalizer, whose limits bound every payload. Default {@link
   * Canonicalizer#defaults()} (1 MiB).
   *
   * @param canonicalizer the canonicalizer
   * @return this builder
   */
  public OnceOnlyBuilder canonicalizer(Canonicalizer canonicalizer) {
    this.canonicalizer = Objects.requireNonNull(canonicalizer, "canonicalizer");
    return this;
  }

  /**
   * Sets the Jackson mapper for arguments and results. Default a plain {@link ObjectMapper} with
   * {@code java.time} support (ISO-8601 text, zone and offset kept) that writes Jackson 3 trees
   * (Spring Boot 4's) as their data wherever they are nested; with a mapper of your own, a Jackson
   * 3 tree is converted only when it is the whole arguments or payload.
   *
   * @param mapper the mapper
   * @return this builder
   */
  public OnceOnlyBuilder objectMapper(ObjectMapper mapper) {
    this.mapper = Objects.requireNonNull(mapper, "mapper");
    return this;
  }

  /**
   * Sets how long a receipt's result is returned to repeated requests. Default 30 days.
   *
   * @param retention a positive duration, at most 100 years
   * @return this builder
   * @throws IllegalArgumentException if it is zero, negative or longer than 100 years
   */
  public OnceOnlyBuilder resultRetention(Duration retention) {
    this.resultRetention = Bounds.positive(retention, "resultRetention");
    return this;
  }

  /**
   * Sets how much longer, after the result expired, the fingerprint is kept so that reuse of the
   * key is reported as {@link Outcome.Expired} instead of running again. Default 365 days; zero
   * turns tombstones off.
   *
   * @param retention zero or a positive duration, at most 100 years
   * @return this builder
   * @throws IllegalArgumentException if it is negative or longer than 100 years
   */
  public OnceOnlyBuilder tombstoneRetention(Duration retention) {
    this.tombstoneRetention = Bounds.nonNegative(retention, "tombstoneRetention");
    return this;
  }

  /**
   * Sets the pattern every scope must match entirely. Default {@link
   * OnceOnly#DEFAULT_SCOPE_PATTERN}.
   *
   * @param regex a regular expression
   * @return this builder
   */
  public OnceOnlyBuilder scopePattern(String regex) {
    this.scopePattern = Pattern.compile(regex).pattern();
    return this;
  }

  /**
   * Sets the pattern every key must match entirely. Default {@link OnceOnly#DEFAULT_KEY_PATTERN}.
   *
   * @param regex a regular expression
   * @return this builder
   */
  public OnceOnlyBuilder keyPattern(String regex) {
    this.keyPattern = Pattern.compile(regex).pattern();
    return this;
  }

  /**
   * Checks the arguments of one operation before anything is written.
   *
   * @param operation the operation's name
   * @param validator the check
   * @return this builder
   */
  public OnceOnlyBuilder validator(String operation, ArgumentsValidator validator) {
    validators.put(
        Objects.requireNonNull(operation, "operation"),
        Objects.requireNonNull(validator, "validator"));
    return this;
  }

  /**
   * Sets the rules of one operation: its own key pattern instead of {@link #keyPattern}, a {@link
   * RequestValidator} that sees the key as well as the arguments, and whether its steps run only
   * for a registered intent (see {@link OperationRules}). Other operations keep the instance's
   * settings. Setting an operation's rules again replaces them.
   *
   * @param operation the operation's name: a letter, then up to 99 of letters, digits and {@code _
   *     . : -}
   * @param rules the rules
   * @return this builder
   * @throws IllegalArgumentException if {@code operation} is not a valid operation name
   */
  public OnceOnlyBuilder operation(String operation, OperationRules rules) {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(rules, "rules");
    if (!RequestPreparer.OPERATION.matcher(operation).matches()) {
      throw new IllegalArgumentException(
          "operation must match " + RequestPreparer.OPERATION + ": " + operation);
    }
    operationRules.put(operation, rules);
    return this;
  }

  /**
   * Limits how many messages of one queue are leased at once, over every instance on the database:
   * a claim takes at most the room left (the limit less the live leases, counted in its
   * transaction; on PostgreSQL the claims of a limited queue are serialized by a transaction lock
   * on it). A lease that runs out frees its room; a message waiting for a retry holds none. Every
   * instance that serves the queue should declare the same limit. While the limit is full, a
   * worker's claims come back empty and it polls at its idle backoff.
   *
   * @param queue the queue's name
   * @param maxLeased the most messages leased at once, 1 to 100,000
   * @return this builder
   */
  public OnceOnlyBuilder concurrencyLimit(String queue, int maxLeased) {
    Objects.requireNonNull(queue, "queue");
    if (maxLeased < 1 || maxLeased > 100_000) {
      throw new IllegalArgumentException("maxLeased must be between 1 and 100000");
    }
    limits.put(queue, maxLeased);
    return this;
  }

  /**
   * Limits how many messages of one partition of a queue (see {@link Message#partition(String)})
   * are leased at once, over every instance on the database: a claim ranks the due messages of each
   * partition and takes one only while its partition's live leases stay within the limit, counted
   * in its transaction (claims of the queue serialized as with {@link #concurrencyLimit}). Messages
   * of no partition are not limited by it; the queue's own {@link #concurrencyLimit}, when declared
   * too, bounds the total. A message of a full partition waits while the messages of other
   * partitions are claimed past it. Every claim of such a queue ranks its due backlog, so its cost
   * grows with the backlog. Every instance that serves the queue should declare the same limit.
   *
   * @param queue the queue's name
   * @param maxLeasedPerPartition the most messages of one partition leased at once, 1 to 100,000
   * @return this builder
   */
  public OnceOnlyBuilder concurrencyLimitPerPartition(String queue, int maxLeasedPerPartition) {
    Objects.requireNonNull(queue, "queue");
    if (maxLeasedPerPartition < 1 || maxLeasedPerPartition > 100_000) {
      throw new IllegalArgumentException("maxLeasedPerPartition must be between 1 and 100000");
    }
    partitionLimits.put(queue, maxLeasedPerPartition);
    return this;
  }

  /**
   * Limits how many messages of one queue are claimed per window, over every instance on the
   * database: in any stretch of time of the window's length, at most {@code limit.claims()}
   * messages are leased (see {@link RateLimit} for why the window slides). Each claim counts the
   * claims of the last window and records its own in its transaction, after the queue's lock (as
   * with {@link #concurrencyLimit}); no lock is held between claims. A claim over the limit leases
   * nothing and charges no attempt: the messages stay due, in their priority order, and a {@link
   * dev.onceonly.queue.Worker} sleeps until the window has room ({@link
   * dev.onceonly.queue.JobQueue#rateLimitWait}) instead of polling. A redelivery after a retry or a
   * lost lease is a claim too and counts. Works together with a concurrency limit (both bound each
   * claim) and with {@link #rateLimitPerPartition}. Every instance that serves the queue should
   * declare the same limit.
   *
   * @param queue the queue's name
   * @param limit the most claims per window
   * @return this builder
   */
  public OnceOnlyBuilder rateLimit(String queue, RateLimit limit) {
    Objects.requireNonNull(queue, "queue");
    rateLimits.put(queue, Objects.requireNonNull(limit, "limit"));
    return this;
  }

  /**
   * Limits how many messages of each partition of a queue (see {@link Message#partition(String)})
   * are claimed per window, over every instance on the database, as {@link #rateLimit} does for the
   * whole queue: a claim leaves out the due messages of the partitions whose window is full and
   * claims the others past them. Messages of no partition are not limited by it; the queue's own
   * {@link #rateLimit}, when declared too, bounds the total. While every due message is in a full
   * partition a worker sleeps until the first of them has room, at most its idle backoff's longest
   * wait. Like {@link #concurrencyLimitPerPartition}, each claim ranks the queue's due backlog.
   *
   * @param queue the queue's name
   * @param limit the most claims per window in each partition
   * @return this builder
   */
  public OnceOnlyBuilder rateLimitPerPartition(String queue, RateLimit limit) {
    Objects.requireNonNull(queue, "queue");
    partitionRateLimits.put(queue, Objects.requireNonNull(limit, "limit"));
    return this;
  }

  /**
   * Declares how long the keys of one queue stay taken beyond their queued messages: for a period
   * after each send, and/or while a dead letter holds them (see {@link Uniqueness}). A send of a
   * taken key answers {@code REPEATED} or {@code CONFLICT} and writes nothing. Every instance that
   * sends to the queue should declare the same. Default for every queue: {@link
   * Uniqueness#whileQueued()}.
   *
   * @param queue the queue's name
   * @param keys its uniqueness
   * @return this builder
   */
  public OnceOnlyBuilder uniqueness(String queue, Uniqueness keys) {
    uniqueness.put(Objects.requireNonNull(queue, "queue"), Objects.requireNonNull(keys, "keys"));
    return this;
  }

  /**
   * Declares an external operation safe to repeat: its provider deduplicates requests by the
   * downstream idempotency key (see {@link ExternalEffects#downstreamKey}). A claim of it whose
   * lease ran out, or whose attempt ended unknown, is then claimed again with the same key instead
   * of waiting for reconciliation. Declare only what the provider documents. Default: none.
   *
   * @param operation the operation's name
   * @return this builder
   */
  public OnceOnlyBuilder safeToRepeat(String operation) {
    safeToRepeat.add(Objects.requireNonNull(operation, "operation"));
    return this;
  }

  /**
   * Registers the status probe of an external operation: it asks the provider whether an unknown
   * claim of the operation was applied, and {@link ExternalEffects#resolveUnknown()} (on demand, or
   * after each pass of a {@link Reconciler}) settles the claim by its answer. One probe per
   * operation; a second registration replaces the first. Default: none.
   *
   * @param operation the operation's name
   * @param probe the probe, thread-safe
   * @return this builder
   */
  public OnceOnlyBuilder statusProbe(String operation, StatusProbe probe) {
    statusProbes.put(
        Objects.requireNonNull(operation, "operation"), Objects.requireNonNull(probe, "probe"));
    return this;
  }

  /**
   * Sets how status probes run: their timeout and the backoff between two probes of one claim.
   * Default: {@link ProbePolicy#defaults()}.
   *
   * @param policy the policy
   * @return this builder
   */
  public OnceOnlyBuilder probePolicy(ProbePolicy policy) {
    this.probePolicy = Objects.requireNonNull(policy, "policy");
    return this;
  }

  /**
   * Sets the bound on a rejection's reason, in characters. Default 300.
   *
   * @param chars at least 16
   * @return this builder
   */
  public OnceOnlyBuilder rejectionReasonChars(int chars) {
    if (chars < 16) {
      throw new IllegalArgumentException("rejectionReasonChars must be >= 16");
    }
    this.rejectionReasonChars = chars;
    return this;
  }

  /**
   * Sets the bound on a rejection's body excerpt, in UTF-8 bytes. Default 8,192.
   *
   * @param bytes at least 0
   * @return this builder
   */
  public OnceOnlyBuilder rejectionBodyBytes(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("rejectionBodyBytes must be >= 0");
    }
    this.rejectionBodyBytes = bytes;
    return this;
  }

  /**
   * Sets how many failed attempts of one message keep their error ({@link
   * dev.onceonly.queue.JobQueue#attemptErrors}): the newest ones; writing a newer entry deletes the
   * oldest beyond it. Default {@value dev.onceonly.queue.AttemptError#DEFAULT_KEPT}. Every instance
   * on the database should set the same.
   *
   * @param attempts 0 (keep none) to 1,000
   * @return this builder
   */
  public OnceOnlyBuilder attemptErrorsKept(int attempts) {
    if (attempts < 0 || attempts > 1_000) {
      throw new IllegalArgumentException("attemptErrorsKept must be between 0 and 1000");
    }
    this.attemptErrorsKept = attempts;
    return this;
  }

  /**
   * Sets how long a SQLite file this library opens waits for another process's lock. Default 5
   * seconds.
   *
   * @param timeout a positive duration, at most 100 years
   * @return this builder
   * @throws IllegalArgumentException if it is zero, negative or longer than 100 years
   */
  public OnceOnlyBuilder busyTimeout(Duration timeout) {
    this.busyTimeout = Bounds.positive(timeout, "busyTimeout");
    return this;
  }

  /**
   * Sets SQLite's {@code synchronous} for files this library opens. Default {@link
   * Synchronous#FULL}.
   *
   * @param synchronous the setting
   * @return this builder
   */
  public OnceOnlyBuilder synchronous(Synchronous synchronous) {
    this.synchronous = Objects.requireNonNull(synchronous, "synchronous");
    return this;
  }

  /**
   * Sets SQLite's {@code journal_mode} for files this library opens. Default {@link
   * JournalMode#WAL}; {@link JournalMode#DELETE} where the files may become unwritable under a
   * running store and a failed step must not take the JVM down with it.
   *
   * @param mode the journal mode
   * @return this builder
   */
  public OnceOnlyBuilder journalMode(JournalMode mode) {
    this.journalMode = Objects.requireNonNull(mode, "journalMode");
    return this;
  }

  /**
   * Sets group commit for a SQLite file or a single connection: steps waiting at the same time run
   * in one transaction, each under its own savepoint, and commit once. A lone step never waits for
   * company: it commits at once. With a positive {@code maxWait}, a leader that already has company
   * waits (parked, not spinning) for more steps while they keep arriving, at most {@code maxWait}.
   * Default: up to 64 steps, no wait. {@code maxBatch} 1 turns grouping off (one transaction per
   * step). Under contention an effect may run on another caller's thread; it must only use the
   * connection it is given.
   *
   * @param maxBatch the most steps in one transaction, at least 1
   * @param maxWait how long a batch may wait to fill, zero or positive, at most 100 years
   * @return this builder
   */
  public OnceOnlyBuilder groupCommit(int maxBatch, Duration maxWait) {
    if (maxBatch <= 0) {
      throw new IllegalArgumentException("maxBatch must be > 0");
    }
    Bounds.nonNegative(maxWait, "maxWait");
    this.groupCommitMaxBatch = maxBatch;
    this.groupCommitMaxWait = maxWait;
    return this;
  }

  /**
   * Sets whether opening applies the schema migrations or only checks that the schema is this
   * library's version. Default {@link Migrations#APPLY}; choose {@link Migrations#VALIDATE} when
   * Flyway or Liquibase owns the schema, or the application's role may not create tables.
   *
   * @param migrations the setting
   * @return this builder
   */
  public OnceOnlyBuilder migrations(Migrations migrations) {
    this.migrations = Objects.requireNonNull(migrations, "migrations");
    return this;
  }

  /**
   * Sets whether {@link #build()} refuses a server that may lose answered commits on a failover:
   * one with no synchronous standby ({@code synchronous_standby_names} empty, or {@code
   * synchronous_commit} {@code off} or {@code local}; see {@link Maintenance#durability()}).
   * Default false: {@code build()} then only logs, once at WARNING, what may be lost. A SQLite file
   * has no standby, so it is refused.
   *
   * @param require whether to refuse a store without a synchronous standby
   * @return this builder
   */
  public OnceOnlyBuilder requireSynchronousReplication(boolean require) {
    this.requireSynchronousReplication = require;
    return this;
  }

  /**
   * Opens the store and applies the schema migrations, or with {@link Migrations#VALIDATE} checks
   * the schema's version.
   *
   * @return the open store
   * @throws IllegalStateException unless exactly one of sqlite, dataSource or connection is set, or
   *     if a {@link #currentTransaction} is set without a data source
   * @throws SchemaVersionException if the schema is newer than this library, or with {@link
   *     Migrations#VALIDATE} missing or older
   * @throws StoreException if the database cannot be opened or migrated
   * @throws DurabilityException with {@link #requireSynchronousReplication} if the server has no
   *     synchronous standby
   */
  public OnceOnly build() {
    if (currentTransaction != null && dataSource == null) {
      throw new IllegalStateException(
          "currentTransaction needs a dataSource: the caller's transactions run on one");
    }
    Database database = openDatabase();
    if (currentTransaction != null) {
      database.callerTransactions(currentTransaction);
    }
    DatabaseClock databaseClock = null;
    Events events = Events.none();
    try {
      events = Events.to(listeners, listenerSeesScopes, listenerBuffer);
      database.events(events);
      if (listenForSends != null && !database.sql().notifiesSends()) {
        throw new IllegalStateException("listenForSends needs PostgreSQL");
      }
      Optional<String> serverClock = database.sql().serverClock();
      if (clock == null && dataSource != null && serverClock.isPresent()) {
        databaseClock = DatabaseClock.start(dataSource, serverClock.get());
      }
      InstantSource time =
          clock != null ? clock : databaseClock != null ? databaseClock : InstantSource.system();
      database.checkServer();
      if (sqliteFile == null || requireSynchronousReplication) { // a file's synchronous is ours
        DurabilityCheck.run(database, description(database), requireSynchronousReplication);
      }
      Migrator migrator = new Migrator(database, tablePrefix, time);
      if (migrations == Migrations.APPLY) {
        migrator.migrate();
      } else if (migrations == Migrations.VALIDATE) {
        migrator.validate();
      }
      return new OnceOnly(
          database,
          core(database, time, events),
          tablePrefix,
          Set.copyOf(safeToRepeat),
          Map.copyOf(statusProbes),
          probePolicy,
          Map.copyOf(uniqueness),
          Map.copyOf(limits),
          Map.copyOf(partitionLimits),
          new RateLimits(rateLimits, partitionRateLimits),
          databaseClock,
          listenForSends,
          migrator,
          description(database));
    } catch (RuntimeException e) {
      if (databaseClock != null) {
        databaseClock.close();
      }
      database.close();
      events.close();
      throw e;
    }
  }

  /** Says what the store runs on, for people: the file, or the dialect and the prefix. */
  private String description(Database database) {
    return sqliteFile != null
        ? "SQLite file " + sqliteFile + ", prefix " + tablePrefix
        : database.dialect().id() + ", prefix " + tablePrefix;
  }

  private StoreContext core(Database database, InstantSource clock, Events events) {
    ObjectMapper m = mapper != null ? mapper : Mappers.defaults();
    RequestPreparer requests =
        new RequestPreparer(
            Pattern.compile(scopePattern),
            Pattern.compile(keyPattern),
            canonicalizer,
            m,
            validators,
            operationRules);
    return new StoreContext(
        database,
        requests,
        clock,
        m,
        resultRetention,
        tombstoneRetention,
        rejectionReasonChars,
        rejectionBodyBytes,
        attemptErrorsKept,
        new StoreContext.Sql(tablePrefix),
        events,
        traceContext);
  }

  private Database openDatabase() {
    return Databases.open(
        new Databases.Source(
            sqliteFile,
            this::openSqliteFile,
            connection,
            dataSource,
            sqliteFile != null ? Dialect.SQLITE : dialect,
            groupCommitMaxBatch,
            groupCommitMaxWait));
  }

  private Connection openSqliteFile() throws SQLException {
    return SqliteFiles.openStore(
        sqliteFile,
        synchronous == Synchronous.FULL,
        busyTimeout,
        journalMode.name().toLowerCase(java.util.Locale.ROOT));
  }
}
