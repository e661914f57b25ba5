package dev.onceonly.internal.external;

import dev.onceonly.Bounds;
import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.external.CancelResult;
import dev.onceonly.external.Claim;
import dev.onceonly.external.ClaimCheck;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.ClaimRecord;
import dev.onceonly.external.ClaimState;
import dev.onceonly.external.ExternalEffects;
import dev.onceonly.external.Failure;
import dev.onceonly.external.FailureClass;
import dev.onceonly.external.ProbePolicy;
import dev.onceonly.external.ProbeReport;
import dev.onceonly.external.Settlement;
import dev.onceonly.external.StatusProbe;
import dev.onceonly.internal.receipts.RequestPreparer;
import dev.onceonly.internal.receipts.SqlIntentStore;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.RetryPolicy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The {@link ExternalEffects} on SQL. Every operation reads the intent's row and writes its
 * transition in one write transaction ({@code BEGIN IMMEDIATE} on SQLite), and the write is also a
 * compare-and-set on the fence and state it read, so a transition never applies to a row that moved
 * on.
 */
public final class SqlExternalEffects implements ExternalEffects {
  private final StoreContext core;
  private final ClaimStatements sql;
  private final ClaimRows rows;
  private final String prefix;
  private final RetryPolicy policy;
  private final Set<String> safeToRepeat;
  private final StatusProbes probes;

  /**
   * Creates the store.
   *
   * @param core the shared database, clock, mapper and request checks
   * @param prefix the validated table prefix
   * @param policy the retry policy for failed attempts
   * @param safeToRepeat operations whose provider deduplicates by the downstream key
   * @param statusProbes the status probe of each operation that has one
   * @param probePolicy how the status probes run
   */
  public SqlExternalEffects(
      StoreContext core,
      String prefix,
      RetryPolicy policy,
      Set<String> safeToRepeat,
      Map<String, StatusProbe> statusProbes,
      ProbePolicy probePolicy) {
    this.core = core;
    this.sql = new ClaimStatements(prefix, core.database().sql());
    this.rows = new ClaimRows(core, sql);
    this.prefix = prefix;
    this.policy = Objects.requireNonNull(policy, "policy");
    this.safeToRepeat = Set.copyOf(safeToRepeat);
    this.probes = new StatusProbes(core, prefix, rows, statusProbes, probePolicy, this::sweep);
  }

  private SqlExternalEffects(SqlExternalEffects base, RetryPolicy other) {
    this.core = base.core;
    this.sql = base.sql;
    this.rows = base.rows;
    this.prefix = base.prefix;
    this.policy = Objects.requireNonNull(other, "policy");
    this.safeToRepeat = base.safeToRepeat;
    this.probes = base.probes.withSweep(this::sweep);
  }

  /** Returns a view of this store with another retry policy. */
  public SqlExternalEffects withPolicy(RetryPolicy other) {
    return new SqlExternalEffects(this, other);
  }

  // ---- claim and compensate ----

  @Override
  public ClaimOutcome claim(IntentKey key, String operation, Object arguments, Duration lease) {
    return answered(operation, claimUnobserved(key, operation, arguments, lease));
  }

  @Override
  public ClaimOutcome compensate(
      IntentKey original,
      IntentKey compensation,
      String operation,
      Object arguments,
      Duration lease) {
    return answered(
        operation, compensateUnobserved(original, compensation, operation, arguments, lease));
  }

  @Override
  public Settlement complete(Claim claim, Object result) {
    return settled(claim, completeUnobserved(claim, result));
  }

  @Override
  public Settlement fail(Claim claim, Failure failure) {
    return settled(claim, failUnobserved(claim, failure));
  }

  @Override
  public Settlement abandon(Claim claim) {
    return settled(claim, abandonUnobserved(claim));
  }

  /** Publishes a claim's answer, after its transaction. */
  private ClaimOutcome answered(String operation, ClaimOutcome outcome) {
    if (core.events().enabled()) {
      core.events().publish(new OnceOnlyEvent.ClaimAnswered(operation, kind(outcome)));
    }
    return outcome;
  }

  /** Publishes a holder's report, after its transaction. */
  private Settlement settled(Claim claim, Settlement settlement) {
    if (core.events().enabled()) {
      core.events().publish(new OnceOnlyEvent.ClaimSettled(claim.operation(), kind(settlement)));
    }
    return settlement;
  }

  /** The lower-case, underscored name of a result record: {@code RetryLater} is retry_later. */
  private static String kind(Object result) {
    return KINDS.get(result.getClass());
  }

  private static final ClassValue<String> KINDS =
      new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
          return type.getSimpleName()
              .replaceAll("([a-z])([A-Z])", "$1_$2")
              .toLowerCase(Locale.ROOT);
        }
      };

  private ClaimOutcome claimUnobserved(
      IntentKey key, String operation, Object arguments, Duration lease) {
    RequestPreparer.Prepared request = core.requests().prepare(key, operation, arguments);
    Bounds.positive(lease, "lease");
    return core.database().write(c -> claimIn(c, request, lease, null));
  }

  private ClaimOutcome compensateUnobserved(
      IntentKey original,
      IntentKey compensation,
      String operation,
      Object arguments,
      Duration lease) {
    core.requests().checkKey(original);
    RequestPreparer.Prepared request = core.requests().prepare(compensation, operation, arguments);
    Bounds.positive(lease, "lease");
    if (!original.scope().equals(compensation.scope())) {
      throw new InvalidRequestException(
          "compensation", "must be in the scope of the intent it compensates, " + original.scope());
    }
    if (original.equals(compensation)) {
      throw new InvalidRequestException("compensation", "needs a key of its own");
    }
    return core.database()
        .write(
            c -> {
              ClaimRow o = rows.lockAndSelect(c, original);
              if (o == null || o.state != ClaimState.COMPLETED) {
                throw new InvalidRequestException(
                    "original",
                    original
                        + " is "
                        + (o == null ? "not claimed" : o.state)
                        + ", not COMPLETED; only a completed effect is compensated");
              }
              return claimIn(c, request, lease, original.key());
            });
  }

  private ClaimOutcome claimIn(
      Connection c, RequestPreparer.Prepared request, Duration lease, String compensates)
      throws SQLException {
    long now = core.clock().millis();
    IntentKey key = request.key();
    ClaimRow row = rows.lockAndSelect(c, key);
    if (row == null) {
      row = new ClaimRow(key, ExternalEffects.downstreamKey(key), now);
      row.operation = request.operation();
      row.fingerprint = request.fingerprint().toString();
      row.arguments = request.canonicalArguments();
      row.compensatesKey = compensates;
      return take(c, row, now, lease, true);
    }
    if (row.fingerprint == null) {
      return cancelled(row); // cancelled before any claim
    }
    if (compensates != null && !compensates.equals(row.compensatesKey)) {
      throw new InvalidRequestException(
          "compensation",
          key + " is already used for an intent that does not compensate " + compensates);
    }
    Fingerprint stored = Fingerprint.parse(row.fingerprint);
    if (!stored.equals(request.fingerprint())) {
      return new ClaimOutcome.Conflict(key, stored, request.fingerprint());
    }
    return answer(c, row, now, lease);
  }

  private ClaimOutcome answer(Connection c, ClaimRow row, long now, Duration lease)
      throws SQLException {
    switch (row.state) {
      case COMPLETED:
        return new ClaimOutcome.Repeated(
            row.key,
            Fingerprint.parse(row.fingerprint),
            row.result,
            Instant.ofEpochMilli(row.completedAt));
      case FAILED:
        return new ClaimOutcome.Failed(row.key, row.failureClass, row.lastError, row.attempts);
      case CANCELLED:
        return cancelled(row);
      case UNKNOWN:
        return unknown(row);
      case RETRY_WAIT:
        if (row.nextAttemptAt > now) {
          return new ClaimOutcome.RetryLater(
              row.key,
              Instant.ofEpochMilli(row.nextAttemptAt),
              row.attempts,
              row.failureClass,
              row.lastError);
        }
        return take(c, row, now, lease, false);
      default: // IN_PROGRESS, CANCEL_REQUESTED
        if (row.leaseUntil > now) {
          return new ClaimOutcome.InProgress(
              row.key, Instant.ofEpochMilli(row.leaseUntil), row.cancelRequested());
        }
        if (takeoverAllowed(row, now)) {
          row.maybeApplied = true;
          row.lastError = expiredMessage(row);
          return take(c, row, now, lease, false);
        }
        expire(c, row, now);
        return unknown(row);
    }
  }

  /** Moves the row to a new claim of this caller (fence + 1, attempt + 1) and writes it. */
  private ClaimOutcome take(Connection c, ClaimRow row, long now, Duration lease, boolean isNew)
      throws SQLException {
    row.state = ClaimState.IN_PROGRESS;
    row.fence++;
    row.attempts++;
    row.leaseUntil = now + lease.toMillis();
    row.nextAttemptAt = null;
    row.probes = 0; // a new attempt: its outcome, if it becomes unknown, is probed afresh
    row.nextProbeAt = null;
    row.firstAttemptAt = row.firstAttemptAt == null ? now : row.firstAttemptAt;
    row.updatedAt = now;
    if (isNew) {
      rows.insert(c, row);
    } else {
      rows.mustUpdate(c, row);
    }
    return new ClaimOutcome.Claimed(
        new Claim(
            row.key,
            row.operation,
            Fingerprint.parse(row.fingerprint),
            row.fence,
            row.attempts,
            row.downstreamKey,
            Instant.ofEpochMilli(row.leaseUntil)));
  }

  /** A lease ran out: a safe-to-repeat operation with budget left may be claimed again. */
  private boolean takeoverAllowed(ClaimRow row, long now) {
    return row.state == ClaimState.IN_PROGRESS
        && safeToRepeat.contains(row.operation)
        && row.attempts < policy.maxAttempts()
        && now <= row.firstAttemptAt + policy.maxElapsed().toMillis();
  }

  /** Records that a lease ran out without a report: the outcome is unknown. */
  private void expire(Connection c, ClaimRow row, long now) throws SQLException {
    row.lastError = expiredMessage(row);
    row.maybeApplied = true;
    row.state = ClaimState.UNKNOWN;
    row.leaseUntil = null;
    row.updatedAt = now;
    rows.mustUpdate(c, row);
  }

  private static String expiredMessage(ClaimRow row) {
    return "lease of attempt "
        + row.attempts
        + " (fence "
        + row.fence
        + ") ran out at "
        + Instant.ofEpochMilli(row.leaseUntil)
        + " without completion";
  }

  private static ClaimOutcome unknown(ClaimRow row) {
    return new ClaimOutcome.Unknown(
        row.key, row.attempts, row.lastError, row.downstreamKey, row.cancelRequested());
  }

  private static ClaimOutcome cancelled(ClaimRow row) {
    return new ClaimOutcome.Cancelled(row.key, row.cancelReason);
  }

  // ---- the holder's reports ----

  private Settlement completeUnobserved(Claim claim, Object result) {
    Objects.requireNonNull(claim, "claim");
    String json = rows.serialize(result);
    return core.database()
        .write(
            c -> {
              ClaimRow row = rows.lockAndSelect(c, claim.key());
              if (row == null
                  || row.fence != claim.fence()
                  || row.state == ClaimState.COMPLETED
                  || row.state == ClaimState.FAILED
                  || row.state == ClaimState.CANCELLED) {
                return fenced(claim, row);
              }
              long now = core.clock().millis();
              row.state = ClaimState.COMPLETED;
              row.result = json;
              row.leaseUntil = null;
              row.nextAttemptAt = null;
              row.completedAt = now;
              row.updatedAt = now;
              rows.mustUpdate(c, row);
              return new Settlement.Completed(row.key, row.fence, json);
            });
  }

  private Settlement failUnobserved(Claim claim, Failure failure) {
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(failure, "failure");
    return core.database().write(c -> failIn(c, claim, failure));
  }

  private Settlement failIn(Connection c, Claim claim, Failure failure) throws SQLException {
    ClaimRow row = rows.lockAndSelect(c, claim.key());
    Settlement refused = refusedReport(claim, row);
    if (refused != null) {
      return refused;
    }
    long now = core.clock().millis();
    FailureClass cls = failure.failureClass();
    String error = ClaimRows.bound(failure.error());
    if (cls == FailureClass.VERSION_CONFLICT) {
      error = ClaimRows.bound(error + " (re-read the resource and submit a new intent)");
    }
    row.failureClass = cls;
    row.lastError = error;
    row.leaseUntil = null;
    row.updatedAt = now;
    row.maybeApplied = row.maybeApplied || cls == FailureClass.UNKNOWN_AFTER_SEND;
    if (row.cancelRequested()) {
      return row.maybeApplied ? toUnknown(c, row) : toCancelled(c, row);
    }
    boolean retry =
        cls == FailureClass.UNKNOWN_AFTER_SEND
            ? safeToRepeat.contains(row.operation)
            : cls.retried();
    if (!retry) {
      return row.maybeApplied ? toUnknown(c, row) : toFailed(c, row);
    }
    Optional<Instant> next =
        policy.nextAttempt(
            row.attempts,
            Instant.ofEpochMilli(row.firstAttemptAt),
            Instant.ofEpochMilli(now),
            failure.requiredWait(),
            ThreadLocalRandom.current());
    if (next.isEmpty()) {
      row.lastError =
          ClaimRows.bound(
              "retry budget spent after " + row.attempts + " attempts; last error: " + error);
      return row.maybeApplied ? toUnknown(c, row) : toFailed(c, row);
    }
    row.state = ClaimState.RETRY_WAIT;
    row.nextAttemptAt = next.get().toEpochMilli();
    rows.mustUpdate(c, row);
    return new Settlement.RetryScheduled(row.key, next.get(), row.attempts, cls);
  }

  private Settlement abandonUnobserved(Claim claim) {
    Objects.requireNonNull(claim, "claim");
    return core.database()
        .write(
            c -> {
              ClaimRow row = rows.lockAndSelect(c, claim.key());
              Settlement refused = refusedReport(claim, row);
              if (refused != null) {
                return refused;
              }
              long now = core.clock().millis();
              row.leaseUntil = null;
              row.updatedAt = now;
              if (row.cancelRequested()) {
                return row.maybeApplied ? toUnknown(c, row) : toCancelled(c, row);
              }
              row.state = ClaimState.RETRY_WAIT;
              row.attempts = Math.max(0, row.attempts - 1); // this attempt never started
              row.nextAttemptAt = now;
              rows.mustUpdate(c, row);
              return new Settlement.RetryScheduled(
                  row.key, Instant.ofEpochMilli(now), row.attempts, null);
            });
  }

  /**
   * Returns why a failure or abandonment report is not applied, or null if {@code claim} holds the
   * intent. After its lease ran out and the intent became unknown, only a completion is taken: "not
   * applied" from the holder cannot clear what an earlier attempt may have done.
   */
  private static Settlement refusedReport(Claim claim, ClaimRow row) {
    if (row == null || row.fence != claim.fence()) {
      return fenced(claim, row);
    }
    if (row.state == ClaimState.UNKNOWN) {
      return new Settlement.Unknown(row.key, row.attempts, row.lastError);
    }
    if (row.state != ClaimState.IN_PROGRESS && row.state != ClaimState.CANCEL_REQUESTED) {
      return fenced(claim, row);
    }
    return null;
  }

  private static Settlement fenced(Claim claim, ClaimRow row) {
    return new Settlement.Fenced(claim.key(), claim.fence(), row == null ? null : row.state);
  }

  private Settlement toUnknown(Connection c, ClaimRow row) throws SQLException {
    row.state = ClaimState.UNKNOWN;
    row.nextAttemptAt = null;
    rows.mustUpdate(c, row);
    return new Settlement.Unknown(row.key, row.attempts, row.lastError);
  }

  private Settlement toCancelled(Connection c, ClaimRow row) throws SQLException {
    row.state = ClaimState.CANCELLED;
    row.nextAttemptAt = null;
    rows.mustUpdate(c, row);
    return new Settlement.Cancelled(row.key, row.cancelReason);
  }

  private Settlement toFailed(Connection c, ClaimRow row) throws SQLException {
    row.state = ClaimState.FAILED;
    row.nextAttemptAt = null;
    rows.mustUpdate(c, row);
    return new Settlement.Failed(row.key, row.failureClass, row.lastError, row.attempts);
  }

  @Override
  public ClaimCheck check(Claim claim) {
    Objects.requireNonNull(claim, "claim");
    return core.database()
        .read(
            c -> {
              ClaimRow row = rows.lockAndSelect(c, claim.key());
              if (row == null || row.fence != claim.fence()) {
                return ClaimCheck.LEASE_LOST;
              }
              if (row.state == ClaimState.CANCEL_REQUESTED) {
                return ClaimCheck.CANCEL_REQUESTED;
              }
              if (row.state != ClaimState.IN_PROGRESS || row.leaseUntil <= core.clock().millis()) {
                return ClaimCheck.LEASE_LOST;
              }
              return ClaimCheck.ACTIVE;
            });
  }

  @Override
  public Optional<Claim> renew(Claim claim, Duration extension) {
    Objects.requireNonNull(claim, "claim");
    Bounds.positive(extension, "extension");
    return core.database()
        .write(
            c -> {
              ClaimRow row = rows.lockAndSelect(c, claim.key());
              if (row == null
                  || row.fence != claim.fence()
                  || (row.state != ClaimState.IN_PROGRESS
                      && row.state != ClaimState.CANCEL_REQUESTED)) {
                return Optional.<Claim>empty();
              }
              long now = core.clock().millis();
              row.leaseUntil = now + extension.toMillis();
              row.updatedAt = now;
              rows.mustUpdate(c, row);
              return Optional.of(
                  new Claim(
                      claim.key(),
                      claim.operation(),
                      claim.fingerprint(),
                      claim.fence(),
                      claim.attempt(),
                      claim.downstreamKey(),
                      Instant.ofEpochMilli(row.leaseUntil)));
            });
  }

  // ---- cancellation ----

  @Override
  public CancelResult cancel(IntentKey key, String reason) {
    core.requests().checkKey(key);
    Objects.requireNonNull(reason, "reason");
    String bounded = ClaimRows.bound(reason);
    return core.database().write(c -> cancelIn(c, key, bounded));
  }

  private CancelResult cancelIn(Connection c, IntentKey key, String reason) throws SQLException {
    long now = core.clock().millis();
    ClaimRow row = rows.lockAndSelect(c, key);
    if (row == null) {
      row = new ClaimRow(key, ExternalEffects.downstreamKey(key), now);
      row.state = ClaimState.CANCELLED;
      row.cancelReason = reason;
      row.cancelRequestedAt = now;
      rows.insert(c, row);
      return new CancelResult.Cancelled(key, reason);
    }
    switch (row.state) {
      case CANCELLED:
        return new CancelResult.Cancelled(key, row.cancelReason);
      case COMPLETED:
        return new CancelResult.AlreadyCompleted(key, row.result);
      case FAILED:
        return new CancelResult.AlreadyFailed(key, row.failureClass);
      default:
        break;
    }
    if (!row.cancelRequested()) {
      row.cancelReason = reason;
      row.cancelRequestedAt = now;
    }
    row.updatedAt = now;
    if (row.state == ClaimState.IN_PROGRESS || row.state == ClaimState.CANCEL_REQUESTED) {
      row.state = ClaimState.CANCEL_REQUESTED;
      rows.mustUpdate(c, row);
      return new CancelResult.Requested(key, ClaimState.CANCEL_REQUESTED);
    }
    if (row.state == ClaimState.RETRY_WAIT && !row.maybeApplied) {
      toCancelled(c, row);
      return new CancelResult.Cancelled(key, row.cancelReason);
    }
    toUnknown(c, row); // UNKNOWN already, or waiting after an attempt that may have applied
    return new CancelResult.Requested(key, ClaimState.UNKNOWN);
  }

  // ---- reconciliation ----

  @Override
  public List<ClaimRecord> unknown(int limit) {
    return unknownAfter(IntentKey.of("", ""), limit);
  }

  @Override
  public List<ClaimRecord> unknownAfter(IntentKey after, int limit) {
    Objects.requireNonNull(after, "after");
    SqlIntentStore.checkLimit(limit);
    return core.database()
        .write(
            c -> {
              sweep(c, limit);
              return unknownPage(c, after, limit);
            });
  }

  @Override
  public List<ClaimRecord> listUnknown(int limit) {
    SqlIntentStore.checkLimit(limit);
    return core.database().read(c -> unknownPage(c, IntentKey.of("", ""), limit));
  }

  @Override
  public ProbeReport resolveUnknown() {
    return probes.run();
  }

  private void sweep(Connection c, int limit) throws SQLException {
    long now = core.clock().millis();
    List<IntentKey> keys = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.expired)) {
      ps.setString(1, ClaimState.IN_PROGRESS.name());
      ps.setString(2, ClaimState.CANCEL_REQUESTED.name());
      core.times().set(ps, 3, now);
      ps.setInt(4, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          keys.add(IntentKey.of(rs.getString(1), rs.getString(2)));
        }
      }
    }
    for (IntentKey key : keys) {
      ClaimRow row = rows.lockAndSelect(c, key);
      if (!leaseRanOut(row, now)) {
        continue; // another instance settled it between the scan and the lock
      }
      if (takeoverAllowed(row, now)) {
        row.lastError = expiredMessage(row);
        row.maybeApplied = true;
        row.state = ClaimState.RETRY_WAIT;
        row.leaseUntil = null;
        row.nextAttemptAt = now;
        row.updatedAt = now;
        rows.mustUpdate(c, row);
      } else {
        expire(c, row, now);
      }
    }
  }

  private static boolean leaseRanOut(ClaimRow row, long now) {
    return row != null
        && (row.state == ClaimState.IN_PROGRESS || row.state == ClaimState.CANCEL_REQUESTED)
        && row.leaseUntil != null
        && row.leaseUntil <= now;
  }

  private List<ClaimRecord> unknownPage(Connection c, IntentKey after, int limit)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.unknownPage)) {
      ps.setString(1, ClaimState.UNKNOWN.name());
      ps.setString(2, after.scope());
      ps.setString(3, after.scope());
      ps.setString(4, after.key());
      ps.setInt(5, limit);
      List<ClaimRecord> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          IntentKey key = IntentKey.of(rs.getString(1), rs.getString(2));
          out.add(new ClaimRow(key, rs, 3, core.times()).toRecord());
        }
      }
      return out;
    }
  }

  @Override
  public Optional<ClaimState> resolveDone(IntentKey key, Object result) {
    core.requests().checkKey(key);
    String json = rows.serialize(result);
    return resolveUnknown(key, (c, row, now) -> rows.settleDone(c, row, json, now));
  }

  @Override
  public Optional<ClaimState> resolveNotDone(IntentKey key) {
    return resolveNotDone(key, null);
  }

  @Override
  public Optional<ClaimState> resolveNotDone(IntentKey key, String reason) {
    core.requests().checkKey(key);
    return resolveUnknown(key, (c, row, now) -> rows.settleNotDone(c, row, reason, now));
  }

  /** An operator's decision on an {@code UNKNOWN} claim, applied to its locked row. */
  @FunctionalInterface
  private interface Resolution {
    void apply(Connection c, ClaimRow row, long now) throws SQLException;
  }

  /**
   * Applies {@code resolution} to the claim of {@code key} if it is {@code UNKNOWN}, with its
   * {@code updatedAt} set to now; answers the state it leaves, or empty if there was nothing to
   * resolve.
   */
  private Optional<ClaimState> resolveUnknown(IntentKey key, Resolution resolution) {
    return core.database()
        .write(
            c -> {
              ClaimRow row = rows.lockAndSelect(c, key);
              if (row == null || row.state != ClaimState.UNKNOWN) {
                return Optional.<ClaimState>empty();
              }
              long now = core.clock().millis();
              row.updatedAt = now;
              resolution.apply(c, row, now);
              return Optional.of(row.state);
            });
  }

  @Override
  public Optional<ClaimRecord> find(IntentKey key) {
    core.requests().checkKey(key);
    return core.database()
        .read(c -> Optional.ofNullable(rows.select(c, key)).map(ClaimRow::toRecord));
  }
}
