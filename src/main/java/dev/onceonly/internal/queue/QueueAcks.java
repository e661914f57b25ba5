package dev.onceonly.internal.queue;

import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.QueueResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Removes messages that are done: the fenced acknowledgement of a lease (one, or a batch in one
 * statement where the dialect has one) and the withdrawal by key, each with the message's large
 * body and the errors kept of its failed attempts. The acknowledgement tells whether the message
 * ever failed (its last error), so a message that never did costs no statement on the errors.
 */
final class QueueAcks {
  private final StoreContext core;
  private final QueueStatements sql;
  private final InstantColumns times;
  private final QueueClaims claims;
  private final AttemptErrorLog errors;

  QueueAcks(StoreContext core, QueueStatements sql, QueueClaims claims, AttemptErrorLog errors) {
    this.core = core;
    this.sql = sql;
    this.times = core.times();
    this.claims = claims;
    this.errors = errors;
  }

  /**
   * Acknowledges inside an open transaction. On a limited queue, only a lease that has not run out:
   * its room may be another claim's now.
   */
  QueueResult ackIn(Connection c, Lease lease) throws SQLException {
    boolean limited = claims.limited(lease.queue());
    try (PreparedStatement ps = c.prepareStatement(limited ? sql.ackLive : sql.ack)) {
      ps.setLong(1, lease.messageId());
      ps.setLong(2, lease.fence());
      if (limited) {
        times.set(ps, 3, core.clock().millis());
      }
      String ref;
      boolean failed;
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return lost(lease);
        }
        ref = rs.getString(1);
        failed = rs.getInt(2) == 1;
      }
      gone(c, lease.queue(), lease.key(), ref, failed);
      return new QueueResult.Completed(lease.key());
    }
  }

  /** Deletes what a removed message leaves: its large body, and its errors if it failed. */
  private void gone(Connection c, String queue, String key, String ref, boolean failed)
      throws SQLException {
    deletePayload(c, ref);
    if (failed) {
      errors.forget(c, queue, key);
    }
  }

  void deletePayload(Connection c, String ref) throws SQLException {
    if (ref == null) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(sql.deletePayload)) {
      ps.setString(1, ref);
      ps.executeUpdate();
    }
  }

  /**
   * Acknowledges {@code leases} inside an open transaction, each as {@link #ackIn} does: on
   * PostgreSQL in one statement for all of them ({@link
   * dev.onceonly.internal.dialect.SqlDialect#ackMany}), so a batch costs one round trip instead of
   * one per lease. Every acknowledged message's row stays locked until the transaction ends, so the
   * works that follow run with their acknowledgements held.
   */
  List<QueueResult> ackEach(Connection c, List<Lease> leases) throws SQLException {
    if (leases.size() < 2
        || sql.ackMany.isEmpty()
        || leases.stream().anyMatch(l -> claims.limited(l.queue()))) {
      List<QueueResult> out = new ArrayList<>(leases.size());
      for (Lease l : leases) {
        out.add(ackIn(c, l));
      }
      return out;
    }
    long[] ids = new long[leases.size()];
    long[] fences = new long[leases.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = leases.get(i).messageId();
      fences[i] = leases.get(i).fence();
    }
    Set<List<Long>> deleted = new HashSet<>();
    Set<List<Long>> failed = new HashSet<>();
    List<String> refs = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.ackMany.get())) {
      ps.setArray(1, c.createArrayOf("bigint", boxed(ids)));
      ps.setArray(2, c.createArrayOf("bigint", boxed(fences)));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          deleted.add(List.of(rs.getLong(1), rs.getLong(2)));
          refs.add(rs.getString(3));
          if (rs.getInt(4) == 1) {
            failed.add(List.of(rs.getLong(1), rs.getLong(2)));
          }
        }
      }
    }
    for (String ref : refs) {
      deletePayload(c, ref);
    }
    List<QueueResult> out = new ArrayList<>(leases.size());
    for (Lease l : leases) {
      // A lease listed twice is acknowledged once, as two statements would: the second finds none.
      List<Long> held = List.of(l.messageId(), l.fence());
      if (failed.remove(held)) {
        errors.forget(c, l.queue(), l.key());
      }
      out.add(deleted.remove(held) ? new QueueResult.Completed(l.key()) : lost(l));
    }
    return out;
  }

  /** Removes a message by key on a connection inside this store's open transaction. */
  boolean withdrawIn(Connection c, String queue, String key) throws SQLException {
    String ref;
    boolean failed;
    try (PreparedStatement ps = c.prepareStatement(sql.withdraw)) {
      ps.setString(1, queue);
      ps.setString(2, key);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return false;
        }
        ref = rs.getString(1);
        failed = rs.getInt(2) == 1;
      }
    }
    gone(c, queue, key, ref, failed);
    return true;
  }

  private static Long[] boxed(long[] values) {
    Long[] out = new Long[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i];
    }
    return out;
  }

  private static QueueResult lost(Lease lease) {
    return new QueueResult.LeaseLost(lease.key(), lease.fence());
  }
}
