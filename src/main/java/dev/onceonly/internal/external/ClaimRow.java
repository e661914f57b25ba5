package dev.onceonly.internal.external;

import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import dev.onceonly.external.ClaimRecord;
import dev.onceonly.external.ClaimState;
import dev.onceonly.external.FailureClass;
import dev.onceonly.internal.dialect.InstantColumns;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * One row of the claims table, read into fields that a transition changes before it is written back
 * with a compare-and-set on the fence and state it was read with. Not thread-safe; lives inside one
 * unit of work.
 */
final class ClaimRow {
  final IntentKey key;
  String operation;
  String fingerprint;
  String arguments;
  ClaimState state;
  long fence;
  Long leaseUntil;
  int attempts;
  String downstreamKey;
  String result;
  String lastError;
  FailureClass failureClass;
  boolean maybeApplied;
  Long nextAttemptAt;
  Long firstAttemptAt;
  String cancelReason;
  Long cancelRequestedAt;
  String compensatesKey;
  long createdAt;
  long updatedAt;
  Long completedAt;
  int probes;
  Long nextProbeAt;
  Long lastProbeAt;
  String lastProbeAnswer;

  /** The fence and state this row was read with, for the compare-and-set. */
  private final long readFence;

  private final ClaimState readState;

  /** A new row, not yet stored. */
  ClaimRow(IntentKey key, String downstreamKey, long now) {
    this.key = key;
    this.downstreamKey = downstreamKey;
    this.createdAt = now;
    this.updatedAt = now;
    this.readFence = -1;
    this.readState = null;
  }

  /** Reads the {@link ClaimStatements#MUTABLE} columns starting at column {@code i}. */
  ClaimRow(IntentKey key, ResultSet rs, int i, InstantColumns times) throws SQLException {
    this.key = key;
    operation = rs.getString(i++);
    fingerprint = rs.getString(i++);
    arguments = rs.getString(i++);
    state = ClaimState.valueOf(rs.getString(i++));
    fence = rs.getLong(i++);
    leaseUntil = times.getNullable(rs, i++);
    attempts = rs.getInt(i++);
    downstreamKey = rs.getString(i++);
    result = rs.getString(i++);
    lastError = rs.getString(i++);
    String fc = rs.getString(i++);
    failureClass = fc == null ? null : FailureClass.valueOf(fc);
    maybeApplied = rs.getInt(i++) != 0;
    nextAttemptAt = times.getNullable(rs, i++);
    firstAttemptAt = times.getNullable(rs, i++);
    cancelReason = rs.getString(i++);
    cancelRequestedAt = times.getNullable(rs, i++);
    compensatesKey = rs.getString(i++);
    createdAt = times.get(rs, i++);
    updatedAt = times.get(rs, i++);
    completedAt = times.getNullable(rs, i++);
    probes = rs.getInt(i++);
    nextProbeAt = times.getNullable(rs, i++);
    lastProbeAt = times.getNullable(rs, i++);
    lastProbeAnswer = rs.getString(i);
    readFence = fence;
    readState = state;
  }

  long readFence() {
    return readFence;
  }

  ClaimState readState() {
    return readState;
  }

  boolean cancelRequested() {
    return cancelRequestedAt != null;
  }

  /** Binds the {@link ClaimStatements#MUTABLE} columns starting at parameter {@code i}. */
  int bind(PreparedStatement ps, int i, InstantColumns times) throws SQLException {
    ps.setString(i++, operation);
    ps.setString(i++, fingerprint);
    ps.setString(i++, arguments);
    ps.setString(i++, state.name());
    ps.setLong(i++, fence);
    times.setNullable(ps, i++, leaseUntil);
    ps.setInt(i++, attempts);
    ps.setString(i++, downstreamKey);
    ps.setString(i++, result);
    ps.setString(i++, lastError);
    ps.setString(i++, failureClass == null ? null : failureClass.name());
    ps.setInt(i++, maybeApplied ? 1 : 0);
    times.setNullable(ps, i++, nextAttemptAt);
    times.setNullable(ps, i++, firstAttemptAt);
    ps.setString(i++, cancelReason);
    times.setNullable(ps, i++, cancelRequestedAt);
    ps.setString(i++, compensatesKey);
    times.set(ps, i++, createdAt);
    times.set(ps, i++, updatedAt);
    times.setNullable(ps, i++, completedAt);
    ps.setInt(i++, probes);
    times.setNullable(ps, i++, nextProbeAt);
    times.setNullable(ps, i++, lastProbeAt);
    ps.setString(i++, lastProbeAnswer);
    return i;
  }

  /** Returns the public view of this row. */
  ClaimRecord toRecord() {
    return new ClaimRecord(
        key,
        operation,
        fingerprint == null ? null : Fingerprint.parse(fingerprint),
        arguments,
        state,
        fence,
        attempts,
        downstreamKey,
        maybeApplied,
        failureClass,
        lastError,
        result,
        instant(leaseUntil),
        instant(nextAttemptAt),
        instant(firstAttemptAt),
        cancelReason,
        instant(cancelRequestedAt),
        compensatesKey == null ? null : IntentKey.of(key.scope(), compensatesKey),
        Instant.ofEpochMilli(createdAt),
        Instant.ofEpochMilli(updatedAt),
        instant(completedAt),
        probes,
        lastProbeAnswer,
        instant(lastProbeAt),
        instant(nextProbeAt));
  }

  static Instant instant(Long millis) {
    return millis == null ? null : Instant.ofEpochMilli(millis);
  }
}
