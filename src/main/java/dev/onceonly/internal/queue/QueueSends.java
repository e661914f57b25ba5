package dev.onceonly.internal.queue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.Fingerprint;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.jcs.Fingerprints;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Uniqueness;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The sends of the job queue: a message's checks and canonical payload, its insert, and the keys
 * its queue's {@link Uniqueness} keeps taken beyond its queued message.
 */
final class QueueSends {
  private static final Uniqueness DEFAULT_UNIQUENESS = Uniqueness.whileQueued();

  /** The most expired taken keys one sweep deletes. */
  private static final int SWEEP_BATCH = 100;

  private final StoreContext core;
  private final QueueStatements sql;
  private final InstantColumns times;
  private final String notifyChannel;
  private final Map<String, Uniqueness> uniqueness;

  QueueSends(
      StoreContext core,
      QueueStatements sql,
      String notifyChannel,
      Map<String, Uniqueness> uniqueness) {
    this.core = core;
    this.sql = sql;
    this.times = core.times();
    this.notifyChannel = notifyChannel;
    this.uniqueness = uniqueness;
  }

  /** A message checked, with its canonical payload, fingerprint and the sender's traceparent. */
  record Prepared(Message message, String payload, Fingerprint fingerprint, String traceparent) {}

  Prepared prepare(Message message) {
    Objects.requireNonNull(message, "message");
    QueueNames.check("queue", message.queue(), QueueNames.QUEUE);
    QueueNames.check("key", message.key(), QueueNames.KEY);
    JsonNode tree = core.requests().toTree(message.payload(), "payload");
    byte[] canonical = core.requests().canonicalizer().canonicalize(tree);
    return new Prepared(
        message,
        new String(canonical, StandardCharsets.UTF_8),
        Fingerprints.of(message.queue(), canonical),
        core.traceparent());
  }

  /** A schedule's run, whose payload is stored canonical JSON already; a run has no sender. */
  static Prepared stored(Message message, String canonicalPayload) {
    byte[] canonical = canonicalPayload.getBytes(StandardCharsets.UTF_8);
    return new Prepared(
        message, canonicalPayload, Fingerprints.of(message.queue(), canonical), null);
  }

  /**
   * Sends inside an open transaction. On a queue whose dead letters keep their keys, a send that
   * found no dead letter and queued its message looks again after its insert, and takes the message
   * back if a dead letter of the key is there now: on PostgreSQL its insert may have waited for the
   * dead-lettering of the key's message and gone through when that one committed, after the first
   * look. The insert goes through only once the key's older message is gone, so the second look
   * sees the dead letter that took it.
   */
  SendResult insert(Connection c, Prepared p, byte[] body) throws SQLException {
    Message m = p.message();
    String ref = body == null ? null : UUID.randomUUID().toString();
    long now = core.clock().millis();
    Uniqueness unique = uniqueness.getOrDefault(m.queue(), DEFAULT_UNIQUENESS);
    String taken = takenBy(c, unique, m, now);
    if (taken != null) {
      return answer(p, taken);
    }
    try (PreparedStatement ps = c.prepareStatement(sql.insertMessage)) {
      ps.setString(1, m.queue());
      ps.setString(2, m.key());
      ps.setString(3, p.fingerprint().toString());
      ps.setString(4, p.payload());
      ps.setString(5, ref);
      times.set(ps, 6, m.deliverAt() == null ? now : m.deliverAt().toEpochMilli());
      times.set(ps, 7, now);
      ps.setInt(8, m.priority());
      ps.setString(9, p.traceparent());
      ps.setString(10, m.partition());
      if (ps.executeUpdate() == 1) {
        String dead = unique.deadLetters() ? lookup(c, sql.deadKey, m, null) : null;
        if (dead != null) {
          takeBack(c, m);
          return answer(p, dead);
        }
        insertPayload(c, ref, body, now);
        take(c, unique, p, now);
        if (notifyChannel != null) {
          SendNotifications.notifySent(c, notifyChannel, m.queue());
        }
        return new SendResult(SendResult.Status.SENT, m.queue(), m.key());
      }
    }
    return answer(p, fingerprintOf(c, m.queue(), m.key()));
  }

  /** {@code REPEATED} if the key is taken by the same payload, else {@code CONFLICT}. */
  private static SendResult answer(Prepared p, String takenBy) {
    Message m = p.message();
    return new SendResult(
        p.fingerprint().toString().equals(takenBy)
            ? SendResult.Status.REPEATED
            : SendResult.Status.CONFLICT,
        m.queue(),
        m.key());
  }

  /** Deletes the message this transaction has just inserted (it has no body yet). */
  private void takeBack(Connection c, Message m) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.withdraw)) {
      ps.setString(1, m.queue());
      ps.setString(2, m.key());
      ps.executeQuery().close();
    }
  }

  /**
   * The fingerprint that keeps {@code m}'s key taken beyond its queued message, as the queue's
   * {@link Uniqueness} says: a send within its period, or a dead letter; null when the key is free.
   */
  private String takenBy(Connection c, Uniqueness unique, Message m, long now) throws SQLException {
    if (unique.period().isPresent()) {
      String fingerprint = lookup(c, sql.takenKey, m, now);
      if (fingerprint != null) {
        return fingerprint;
      }
    }
    return unique.deadLetters() ? lookup(c, sql.deadKey, m, null) : null;
  }

  private String lookup(Connection c, String query, Message m, Long now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(query)) {
      ps.setString(1, m.queue());
      ps.setString(2, m.key());
      if (now != null) {
        times.set(ps, 3, now);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  /** Keeps a sent key taken for the queue's period, and now and then sweeps expired ones. */
  private void take(Connection c, Uniqueness unique, Prepared p, long now) throws SQLException {
    if (unique.period().isEmpty()) {
      return;
    }
    Message m = p.message();
    try (PreparedStatement ps = c.prepareStatement(sql.takeKey)) {
      ps.setString(1, m.queue());
      ps.setString(2, m.key());
      ps.setString(3, p.fingerprint().toString());
      times.set(ps, 4, now + unique.period().get().toMillis());
      ps.executeUpdate();
    }
    if (ThreadLocalRandom.current().nextInt(64) == 0) {
      try (PreparedStatement ps = c.prepareStatement(sql.sweepTakenKeys)) {
        ps.setString(1, m.queue());
        times.set(ps, 2, now);
        ps.setInt(3, SWEEP_BATCH);
        ps.executeUpdate();
      }
    }
  }

  private void insertPayload(Connection c, String ref, byte[] body, long now) throws SQLException {
    if (ref == null) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(sql.insertPayload)) {
      ps.setString(1, ref);
      ps.setBytes(2, body);
      times.set(ps, 3, now);
      ps.executeUpdate();
    }
  }

  private String fingerprintOf(Connection c, String queue, String key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.messageFingerprint)) {
      ps.setString(1, queue);
      ps.setString(2, key);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : "";
      }
    }
  }
}
