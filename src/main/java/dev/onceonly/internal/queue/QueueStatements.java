package dev.onceonly.internal.queue;

import dev.onceonly.internal.db.StatementCache;
import dev.onceonly.internal.dialect.SqlDialect;
import java.lang.invoke.MethodHandles;
import java.util.List;
import java.util.Optional;

/** Every SQL statement of the job queue, built once for a table prefix. */
final class QueueStatements {
  final String insertMessage;
  final String messageFingerprint;
  final String claim;
  final String claimOldest;
  final String partitionWindow;
  final String partitionWindowOldest;

  /** The partition windows of a queue with a rate limit per partition: its full ones left out. */
  final String partitionWindowRated;

  final String partitionWindowRatedOldest;
  final String claimIds;
  final String partitionLeases;
  final String ack;

  /** The acknowledgement of many leases in one statement, where the dialect has one. */
  final Optional<String> ackMany;

  final String renew;

  /** On a limited queue, the ack and renewal of a lease that has not run out. */
  final String ackLive;

  final String renewLive;
  final String reschedule;
  final String attempts;
  final String retry;
  final String deadLetter;
  final String deleteMessage;
  final String withdraw;
  final String dropReplacedDeadPayload;
  final String insertPayload;
  final String selectPayload;
  final String deletePayload;
  final String listDeadLetters;
  final String findDeadLetter;
  final String requeue;
  final String requeueListed;
  final String deleteDeadLetter;
  final String depth;
  final String nextDue;
  final String takenKey;
  final String deadKey;
  final String takeKey;
  final String sweepTakenKeys;
  final String leasedCount;

  QueueStatements(String p, SqlDialect dialect) {
    String m = p + "messages";
    insertMessage =
        dialect.insertOrNothing(
            "INSERT INTO "
                + m
                + " (queue, message_key, fingerprint, payload, payload_ref, deliver_at, created_at,"
                + " priority, traceparent, partition_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            "queue, message_key");
    messageFingerprint = "SELECT fingerprint FROM " + m + " WHERE queue = ? AND message_key = ?";
    String pauses = p + "queue_pauses";
    claim = dialect.claim(m, pauses, false);
    claimOldest = dialect.claim(m, pauses, true);
    partitionWindow = partitionWindow(m, pauses, dialect, false, null);
    partitionWindowOldest = partitionWindow(m, pauses, dialect, true, null);
    partitionWindowRated = partitionWindow(m, pauses, dialect, false, p + "rate_claims");
    partitionWindowRatedOldest = partitionWindow(m, pauses, dialect, true, p + "rate_claims");
    partitionLeases =
        "SELECT partition_key, COUNT(*) FROM "
            + m
            + " WHERE queue = ? AND leased = 1 AND deliver_at > ? AND partition_key IS NOT NULL"
            + " GROUP BY partition_key";
    claimIds = dialect.claimIds(m, CLAIM_IDS);
    // Each removal of a message returns its large body's reference and whether it ever failed
    // (then it may have kept errors; a requeue carries the dead letter's last error over).
    String removed = " RETURNING payload_ref, " + FAILED;
    ack = "DELETE FROM " + m + " WHERE id = ? AND fence = ?" + removed;
    ackMany = dialect.ackMany(m);
    renew = "UPDATE " + m + " SET deliver_at = ? WHERE id = ? AND fence = ?";
    ackLive = "DELETE FROM " + m + " WHERE id = ? AND fence = ? AND deliver_at > ?" + removed;
    renewLive = renew + " AND deliver_at > ?";
    reschedule =
        "UPDATE "
            + m
            + " SET deliver_at = ?, attempts = "
            + dialect.decrementToZero("attempts")
            + ","
            + " fence = fence + 1,"
            + " first_claimed_at = NULL, leased = 0 WHERE id = ? AND fence = ?";
    attempts =
        "SELECT attempts, COALESCE(first_claimed_at, created_at) FROM "
            + m
            + " WHERE id = ? AND fence = ?";
    retry =
        "UPDATE "
            + m
            + " SET deliver_at = ?, last_error = ?, fence = fence + 1, leased = 0"
            + " WHERE id = ? AND fence = ?";
    deadLetter =
        dialect.upsert(
            "INSERT INTO "
                + p
                + "dead_letters (queue, message_key, fingerprint, payload, payload_ref, attempts,"
                + " last_error, created_at, dead_at, priority, partition_key, traceparent) SELECT"
                + " queue, message_key, fingerprint, payload, payload_ref, ?, ?, created_at, ?,"
                + " priority, partition_key, traceparent FROM "
                + m
                + " WHERE id = ? AND fence = ?",
            "queue, message_key",
            List.of(
                "fingerprint",
                "payload",
                "payload_ref",
                "attempts",
                "last_error",
                "created_at",
                "dead_at",
                "priority",
                "partition_key",
                "traceparent"));
    deleteMessage = "DELETE FROM " + m + " WHERE id = ? AND fence = ?";
    withdraw = "DELETE FROM " + m + " WHERE queue = ? AND message_key = ?" + removed;
    dropReplacedDeadPayload =
        "DELETE FROM "
            + p
            + "payloads WHERE payload_ref = (SELECT d.payload_ref FROM "
            + p
            + "dead_letters d JOIN "
            + m
            + " x ON x.queue = d.queue AND x.message_key = d.message_key"
            + " WHERE x.id = ? AND x.fence = ? AND "
            + dialect.distinct("d.payload_ref", "x.payload_ref")
            + ")";
    insertPayload =
        "INSERT INTO " + p + "payloads (payload_ref, body, created_at) VALUES (?, ?, ?)";
    selectPayload =
        "SELECT body FROM "
            + p
            + "payloads WHERE payload_ref = (SELECT payload_ref FROM "
            + m
            + " WHERE id = ?)";
    deletePayload = "DELETE FROM " + p + "payloads WHERE payload_ref = ?";
    listDeadLetters =
        "SELECT message_key, payload, attempts, last_error, dead_at FROM "
            + p
            + "dead_letters WHERE queue = ? ORDER BY dead_at, message_key LIMIT ?";
    findDeadLetter =
        "SELECT message_key, payload, attempts, last_error, dead_at FROM "
            + p
            + "dead_letters WHERE queue = ? AND message_key = ?";
    String requeueFrom =
        "INSERT INTO "
            + m
            + " (queue, message_key, fingerprint, payload, payload_ref, deliver_at, created_at,"
            + " priority, partition_key, traceparent, last_error) SELECT queue, message_key,"
            + " fingerprint, payload, payload_ref, ?, created_at, priority, partition_key,"
            + " traceparent, last_error FROM "
            + p
            + "dead_letters WHERE queue = ? AND message_key = ?";
    requeue = dialect.insertOrNothing(requeueFrom, "queue, message_key");
    requeueListed = dialect.insertOrNothing(requeueFrom + " AND dead_at = ?", "queue, message_key");
    deleteDeadLetter = "DELETE FROM " + p + "dead_letters WHERE queue = ? AND message_key = ?";
    depth = "SELECT COUNT(*) FROM " + m + " WHERE queue = ?";
    nextDue = "SELECT MIN(deliver_at) FROM " + m + " WHERE queue = ?";
    leasedCount =
        "SELECT COUNT(*) FROM " + m + " WHERE queue = ? AND leased = 1 AND deliver_at > ?";
    String u = p + "unique_keys";
    takenKey =
        "SELECT fingerprint FROM " + u + " WHERE queue = ? AND message_key = ? AND taken_until > ?";
    deadKey = "SELECT fingerprint FROM " + p + "dead_letters WHERE queue = ? AND message_key = ?";
    takeKey =
        dialect.upsert(
            "INSERT INTO "
                + u
                + " (queue, message_key, fingerprint, taken_until) VALUES (?, ?, ?, ?)",
            "queue, message_key",
            List.of("fingerprint", "taken_until"));
    sweepTakenKeys =
        dialect.deleteFirst(
            u, "queue, message_key", "queue = ? AND taken_until <= ?", "taken_until");
    StatementCache.registerFields(this, MethodHandles.lookup());
  }

  /** Whether a removed message ever failed, 1 or 0: a column its removal returns. */
  static final String FAILED = "CASE WHEN last_error IS NULL THEN 0 ELSE 1 END";

  /** How many ids {@link #claimIds} takes; fewer are padded by repeating the last. */
  static final int CLAIM_IDS = 64;

  /**
   * The next due messages of a queue with a limit per partition, in claim order, leaving out the
   * partitions whose live leases fill the limit (a message of no partition is never left out), each
   * with its partition. The same on both dialects but for {@code due}, which keeps SQLite walking
   * the claim order's index instead of sorting every due message. Parameters: the queue, now, the
   * queue, now, the limit, how many. With {@code rateClaims}, the partitions whose rate window is
   * full are left out too, with three more parameters before how many: the queue, the window's
   * start, the rate limit. A paused queue (a row in {@code pauses}) has none: tested with {@code
   * NOT IN} ({@link SqlDialect#unpaused}) over the pauses (never null, their key), which PostgreSQL
   * evaluates once as a hashed subplan; a {@code NOT EXISTS} it makes an anti join estimated at one
   * row, and then reads and sorts every due message of the queue instead of walking the claim
   * order's index (16 claims a second with a million messages waiting over 1,000 partitions,
   * docs/performance-growth.md).
   */
  private static String partitionWindow(
      String m, String pauses, SqlDialect dialect, boolean oldestFirst, String rateClaims) {
    return "SELECT x.id, x.partition_key FROM "
        + m
        + " x WHERE x.queue = ? AND "
        + SqlDialect.unpaused(pauses, "x.queue")
        + " AND "
        + dialect.notIndexed("x.deliver_at")
        + " <= ? AND (x.partition_key IS NULL OR x.partition_key NOT IN (SELECT b.partition_key"
        + " FROM "
        + m
        + " b WHERE b.queue = ? AND b.leased = 1 AND b.deliver_at > ? AND b.partition_key IS NOT"
        + " NULL GROUP BY b.partition_key HAVING COUNT(*) >= ?))"
        + (rateClaims == null
            ? ""
            : " AND (x.partition_key IS NULL OR x.partition_key NOT IN ("
                + QueueRateLimits.fullPartitions(rateClaims)
                + "))")
        + " ORDER BY "
        + (oldestFirst ? "" : "x.priority DESC, ")
        + "x.deliver_at, x.id LIMIT ?";
  }
}
