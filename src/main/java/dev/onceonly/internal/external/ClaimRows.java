package dev.onceonly.internal.external;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.onceonly.IntentKey;
import dev.onceonly.external.ClaimState;
import dev.onceonly.internal.receipts.SqlRejectionStore;
import dev.onceonly.internal.receipts.StoreContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Reads and writes claim rows for the transitions of {@link SqlExternalEffects} and {@link
 * StatusProbes}: a read that locks the key first, an insert, and the fenced write-back.
 */
final class ClaimRows {
  private static final int MAX_TEXT_CHARS = 2000;

  private final StoreContext core;
  private final ClaimStatements sql;

  ClaimRows(StoreContext core, ClaimStatements sql) {
    this.core = core;
    this.sql = sql;
  }

  /**
   * Reads a claim row for a transition. On PostgreSQL the key is locked first (see {@link
   * StoreContext#lockKey}), so the read-decide-write of one transition cannot interleave with
   * another instance's on the same key; the fence compare-and-set in {@link #mustUpdate} stays as a
   * check.
   */
  ClaimRow lockAndSelect(Connection c, IntentKey key) throws SQLException {
    core.lockKey(c, "claims", key);
    return select(c, key);
  }

  ClaimRow select(Connection c, IntentKey key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.select)) {
      ps.setString(1, key.scope());
      ps.setString(2, key.key());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new ClaimRow(key, rs, 1, core.times()) : null;
      }
    }
  }

  void insert(Connection c, ClaimRow row) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.insert)) {
      ps.setString(1, row.key.scope());
      ps.setString(2, row.key.key());
      row.bind(ps, 3, core.times());
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException("claim row for " + row.key + " appeared concurrently");
      }
    }
  }

  /** Writes a transition; the row must still have the fence and state it was read with. */
  void mustUpdate(Connection c, ClaimRow row) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.update)) {
      int i = row.bind(ps, 1, core.times());
      ps.setString(i++, row.key.scope());
      ps.setString(i++, row.key.key());
      ps.setLong(i++, row.readFence());
      ps.setString(i, row.readState().name());
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException("claim row for " + row.key + " changed concurrently");
      }
    }
  }

  /**
   * Settles an unknown row as done with the result {@code json}: what an operator's {@code
   * resolveDone} and a probe's {@code Applied} do.
   */
  void settleDone(Connection c, ClaimRow row, String json, long now) throws SQLException {
    row.state = ClaimState.COMPLETED;
    row.result = json;
    row.completedAt = now;
    row.updatedAt = now;
    row.nextProbeAt = null;
    mustUpdate(c, row);
  }

  /**
   * Settles an unknown row as not done: a new attempt is due at once, or it is cancelled if
   * cancellation was requested; what an operator's {@code resolveNotDone} and a probe's {@code
   * NotApplied} do. A reason, if any, becomes the last error.
   */
  void settleNotDone(Connection c, ClaimRow row, String reason, long now) throws SQLException {
    row.maybeApplied = false; // the provider was checked: no attempt applied it
    if (reason != null) {
      row.lastError = bound("resolved as not done: " + reason);
    }
    row.updatedAt = now;
    row.nextProbeAt = null;
    row.state = row.cancelRequested() ? ClaimState.CANCELLED : ClaimState.RETRY_WAIT;
    row.nextAttemptAt = row.cancelRequested() ? null : now;
    mustUpdate(c, row);
  }

  String serialize(Object result) {
    try {
      return core.mapper().writeValueAsString(result);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "the result cannot be written as JSON: " + e.getOriginalMessage(), e);
    }
  }

  static String bound(String raw) {
    String text = SqlRejectionStore.storable(raw);
    return text.length() <= MAX_TEXT_CHARS
        ? text
        : text.substring(0, MAX_TEXT_CHARS - 1) + "\u2026";
  }
}
