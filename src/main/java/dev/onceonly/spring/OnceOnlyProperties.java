package dev.onceonly.spring;

import dev.onceonly.Bounds;
import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.queue.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code onceonly.*} properties of the auto-configuration. Every value is checked when it is
 * bound, by the same checks as {@link OnceOnlyBuilder} and {@link RetryPolicy.Builder}, and a bad
 * one fails the start with a message naming the property and its bound.
 *
 * @param tablePrefix prefix of every table name (OnceOnlyBuilder.tablePrefix)
 * @param migrations whether opening applies the schema migrations, only validates the version, or
 *     does neither (OnceOnlyBuilder.migrations)
 * @param joinTransactions whether calls without a connection join the Spring transaction the
 *     calling thread is in on the application's data source (SpringCurrentTransaction)
 * @param requireSynchronousReplication whether the start is refused unless the database confirms
 *     each commit on a synchronous standby, so that a failover loses no answered receipt
 *     (OnceOnlyBuilder.requireSynchronousReplication)
 * @param resultRetention how long a receipt's result is returned (OnceOnlyBuilder.resultRetention)
 * @param tombstoneRetention how much longer a fingerprint is kept; zero turns tombstones off
 *     (OnceOnlyBuilder.tombstoneRetention)
 * @param scopePattern what every scope must match (OnceOnlyBuilder.scopePattern)
 * @param keyPattern what every key must match (OnceOnlyBuilder.keyPattern)
 * @param safeToRepeat external operations whose provider deduplicates by the downstream key
 *     (OnceOnlyBuilder.safeToRepeat)
 * @param canonicalizer the limits on every payload
 * @param rejections the bounds on recorded rejections
 * @param retry the retry policy of the workers' queue
 * @param sqlite what SQLite through a data source needs
 * @param workers the handler beans' workers
 * @param reconciler the scheduled reconciler
 * @param purge the scheduled retention
 * @param health the thresholds of the health indicator
 * @param queues the limits of each queue, by the queue's name ({@code
 *     onceonly.queues.payments.rate-limit=100/1m})
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
@ConfigurationProperties("onceonly")
public record OnceOnlyProperties(
    @DefaultValue(OnceOnly.DEFAULT_TABLE_PREFIX) String tablePrefix,
    @DefaultValue("APPLY") OnceOnly.Migrations migrations,
    @DefaultValue("true") boolean joinTransactions,
    @DefaultValue("false") boolean requireSynchronousReplication,
    @DefaultValue("30d") Duration resultRetention,
    @DefaultValue("365d") Duration tombstoneRetention,
    @DefaultValue(OnceOnly.DEFAULT_SCOPE_PATTERN) String scopePattern,
    @DefaultValue(OnceOnly.DEFAULT_KEY_PATTERN) String keyPattern,
    @DefaultValue List<String> safeToRepeat,
    @DefaultValue Canonicalizer canonicalizer,
    @DefaultValue Rejections rejections,
    @DefaultValue Retry retry,
    @DefaultValue Sqlite sqlite,
    @DefaultValue Workers workers,
    @DefaultValue Reconciler reconciler,
    @DefaultValue Purge purge,
    @DefaultValue Health health,
    @DefaultValue Map<String, Queue> queues) {

  /**
   * Checks every value with the library's own checks, naming the property in the message.
   *
   * @param tablePrefix prefix of every table name
   * @param migrations apply, validate or none
   * @param joinTransactions whether calls join the Spring transaction
   * @param requireSynchronousReplication whether to refuse a database without a synchronous standby
   * @param resultRetention how long a receipt's result is returned
   * @param tombstoneRetention how much longer a fingerprint is kept
   * @param scopePattern what every scope must match
   * @param keyPattern what every key must match
   * @param safeToRepeat external operations safe to repeat
   * @param canonicalizer the limits on every payload
   * @param rejections the bounds on recorded rejections
   * @param retry the retry policy of the workers' queue
   * @param sqlite what SQLite through a data source needs
   * @param workers the handler beans' workers
   * @param reconciler the scheduled reconciler
   * @param purge the scheduled retention
   * @param health the thresholds of the health indicator
   * @param queues the limits of each queue
   */
  public OnceOnlyProperties {
    List<String> operations = List.copyOf(safeToRepeat);
    safeToRepeat = operations;
    OnceOnlyBuilder b = OnceOnly.builder();
    check("onceonly.table-prefix", () -> b.tablePrefix(tablePrefix));
    check("onceonly.migrations", () -> b.migrations(migrations));
    check("onceonly.result-retention", () -> b.resultRetention(resultRetention));
    check("onceonly.tombstone-retention", () -> b.tombstoneRetention(tombstoneRetention));
    check("onceonly.scope-pattern", () -> b.scopePattern(scopePattern));
    check("onceonly.key-pattern", () -> b.keyPattern(keyPattern));
    check("onceonly.rejections.reason-chars", () -> b.rejectionReasonChars(rejections.reasonChars));
    check("onceonly.rejections.body-bytes", () -> b.rejectionBodyBytes(rejections.bodyBytes));
    check("onceonly.canonicalizer", canonicalizer::build);
    check("onceonly.retry", retry::build);
    check("onceonly.workers.lease", () -> Bounds.positive(workers.lease, "lease"));
    check(
        "onceonly.workers.shutdown-timeout",
        () -> Bounds.positive(workers.shutdownTimeout, "shutdownTimeout"));
    check("onceonly.reconciler.interval", () -> Bounds.positive(reconciler.interval, "interval"));
    check("onceonly.reconciler", () -> reconcilerBuilderCheck(reconciler));
    check("onceonly.purge.interval", () -> Bounds.positive(purge.interval, "interval"));
    check("onceonly.purge.batch-size", () -> batch(purge.batchSize));
    check(
        "onceonly.purge.rejection-retention",
        () -> Bounds.nonNegative(purge.rejectionRetention, "rejectionRetention"));
    check(
        "onceonly.purge.dead-letter-retention",
        () -> Bounds.nonNegative(purge.deadLetterRetention, "deadLetterRetention"));
    check(
        "onceonly.purge.workflow-retention",
        () -> Bounds.nonNegative(purge.workflowRetention, "workflowRetention"));
    if (health.maxPendingIntentAge != null) {
      check(
          "onceonly.health.max-pending-intent-age",
          () -> Bounds.positive(health.maxPendingIntentAge, "maxPendingIntentAge"));
    }
    if (health.maxUnknownOutcomes != null && health.maxUnknownOutcomes < 0) {
      throw new IllegalArgumentException("onceonly.health.max-unknown-outcomes must be >= 0");
    }
    if (health.maxDeadLetters != null && health.maxDeadLetters < 0) {
      throw new IllegalArgumentException("onceonly.health.max-dead-letters must be >= 0");
    }
    queues = Map.copyOf(queues);
    queues.forEach((name, q) -> check("onceonly.queues." + name, () -> q.apply(name, b)));
  }

  private static Object reconcilerBuilderCheck(Reconciler r) {
    if (r.enabled && (r.queue == null || r.queue.isBlank())) {
      throw new IllegalArgumentException("queue must be set when the reconciler is enabled");
    }
    if (r.batchSize < 1 || r.batchSize > 10_000) {
      throw new IllegalArgumentException("batch-size must be between 1 and 10000");
    }
    if (r.maxBatches < 1) {
      throw new IllegalArgumentException("max-batches must be > 0");
    }
    return r;
  }

  private static Object batch(int size) {
    if (size < 1 || size > dev.onceonly.maintenance.Maintenance.MAX_BATCH) {
      throw new IllegalArgumentException(
          "must be between 1 and " + dev.onceonly.maintenance.Maintenance.MAX_BATCH);
    }
    return size;
  }

  private interface Check {
    Object run();
  }

  private static void check(String property, Check check) {
    try {
      check.run();
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException(property + ": " + e.getMessage()); // says it all
    }
  }

  /**
   * The limits on every payload ({@link dev.onceonly.Canonicalizer.Builder}).
   *
   * @param maxInputBytes the largest JSON input, in UTF-8 bytes
   * @param maxDepth the deepest nesting of arrays and objects
   * @param maxStringLength the longest string, in UTF-16 units
   */
  public record Canonicalizer(
      @DefaultValue("1048576") int maxInputBytes,
      @DefaultValue("64") int maxDepth,
      @DefaultValue("65536") int maxStringLength) {
    dev.onceonly.Canonicalizer build() {
      return dev.onceonly.Canonicalizer.builder()
          .maxInputBytes(maxInputBytes)
          .maxDepth(maxDepth)
          .maxStringLength(maxStringLength)
          .build();
    }
  }

  /**
   * The bounds on recorded rejections.
   *
   * @param reasonChars bound on a rejection's reason, in characters, at least 16
   * @param bodyBytes bound on a rejection's body excerpt, in UTF-8 bytes, at least 0
   */
  public record Rejections(
      @DefaultValue("300") int reasonChars, @DefaultValue("8192") int bodyBytes) {}

  /**
   * The retry policy of the queue the handler beans' workers use ({@link RetryPolicy.Builder}).
   *
   * @param maxAttempts most deliveries counting the first
   * @param baseDelay the first backoff's upper bound, doubling after each failure
   * @param maxDelay cap on one backoff
   * @param maxElapsed total time budget from the first attempt
   */
  public record Retry(
      @DefaultValue("5") int maxAttempts,
      @DefaultValue("1s") Duration baseDelay,
      @DefaultValue("5m") Duration maxDelay,
      @DefaultValue("1h") Duration maxElapsed) {
    RetryPolicy build() {
      return RetryPolicy.builder()
          .maxAttempts(maxAttempts)
          .baseDelay(baseDelay)
          .maxDelay(maxDelay)
          .maxElapsed(maxElapsed)
          .build();
    }
  }

  /**
   * What SQLite through a data source needs. Spring begins a transaction with {@code
   * setAutoCommit(false)}, which the SQLite driver turns into a deferred {@code BEGIN}: two such
   * transactions that both read and then write fail with {@code SQLITE_BUSY} instead of waiting.
   * With {@code transaction_mode=IMMEDIATE} on the data source (a URL parameter of the driver) they
   * take the write lock at the start and wait for it within {@code busy_timeout}.
   *
   * @param allowDeferredTransactions start even though the data source begins deferred transactions
   *     (refused by default, since concurrent joined steps would fail with SQLITE_BUSY); then only
   *     a warning is logged
   */
  public record Sqlite(@DefaultValue("false") boolean allowDeferredTransactions) {}

  /**
   * The workers of {@link OnceOnlyHandler} beans.
   *
   * @param lease default lease of each claim, renewed every third of it
   * @param shutdownTimeout default time a worker waits at shutdown for handlers in flight before it
   *     cancels them and releases their messages
   * @param phase the org.springframework.context.SmartLifecycle phase the workers start and stop
   *     in: started after and stopped before lower phases
   */
  public record Workers(
      @DefaultValue("30s") Duration lease,
      @DefaultValue("10s") Duration shutdownTimeout,
      @DefaultValue("2147483647") int phase) {}

  /**
   * The scheduled reconciler, which publishes again every registered intent without a receipt as an
   * {@link dev.onceonly.queue.IntentMessage} on a queue. Off by default.
   *
   * @param enabled whether it runs
   * @param queue the queue the intents are published on (required when enabled)
   * @param interval the time between the end of one pass and the start of the next
   * @param batchSize intents read per batch, 1 to 10,000
   * @param maxBatches most batches per pass
   */
  public record Reconciler(
      @DefaultValue("false") boolean enabled,
      String queue,
      @DefaultValue("1m") Duration interval,
      @DefaultValue("100") int batchSize,
      @DefaultValue("1000") int maxBatches) {}

  /**
   * The scheduled retention: receipts past their retention, old rejections, old dead letters and
   * workflow runs finished long ago. Off by default.
   *
   * @param enabled whether it runs
   * @param interval the time between the end of one pass and the start of the next
   * @param batchSize rows per transaction, 1 to 10,000
   * @param rejectionRetention age past which a rejection is deleted
   * @param deadLetterRetention age past which a dead letter is deleted
   * @param workflowRetention age past which a finished workflow run is deleted
   */
  public record Purge(
      @DefaultValue("false") boolean enabled,
      @DefaultValue("1h") Duration interval,
      @DefaultValue("1000") int batchSize,
      @DefaultValue("30d") Duration rejectionRetention,
      @DefaultValue("30d") Duration deadLetterRetention,
      @DefaultValue("30d") Duration workflowRetention) {}

  /**
   * The thresholds of the health indicator: exceeding one reports {@code DOWN}. Unset, the value is
   * only reported. A schema that is not this library's version is always {@code DOWN}.
   *
   * @param maxPendingIntentAge the oldest a registered intent without a receipt may be
   * @param maxUnknownOutcomes the most external effects whose outcome nobody knows
   * @param maxDeadLetters the most dead letters over every queue
   */
  public record Health(
      Duration maxPendingIntentAge, Long maxUnknownOutcomes, Long maxDeadLetters) {}

  /**
   * The limits of one queue, over every instance on the database (each instance that serves the
   * queue should declare the same). Unset values leave the queue unlimited in that respect.
   *
   * @param concurrencyLimit the most messages leased at once (OnceOnlyBuilder.concurrencyLimit)
   * @param concurrencyLimitPerPartition the most messages of one partition leased at once
   *     (OnceOnlyBuilder.concurrencyLimitPerPartition)
   * @param rateLimit the most claims per sliding window, spelled {@code claims/window} with the
   *     window a Spring Boot duration: {@code 100/1m}, {@code 5/500ms}, {@code 100/PT1M}
   *     (OnceOnlyBuilder.rateLimit)
   * @param rateLimitPerPartition the most claims of one partition per sliding window, spelled as
   *     {@code rateLimit} (OnceOnlyBuilder.rateLimitPerPartition)
   */
  public record Queue(
      Integer concurrencyLimit,
      Integer concurrencyLimitPerPartition,
      String rateLimit,
      String rateLimitPerPartition) {
    /** Declares these limits of {@code queue} on {@code b}, checked by the builder. */
    Object apply(String queue, OnceOnlyBuilder b) {
      if (concurrencyLimit != null) {
        b.concurrencyLimit(queue, concurrencyLimit);
      }
      if (concurrencyLimitPerPartition != null) {
        b.concurrencyLimitPerPartition(queue, concurrencyLimitPerPartition);
      }
      if (rateLimit != null) {
        b.rateLimit(queue, QueueLimitSettings.rate(rateLimit));
      }
      if (rateLimitPerPartition != null) {
        b.rateLimitPerPartition(queue, QueueLimitSettings.rate(rateLimitPerPartition));
      }
      return b;
    }
  }
}
