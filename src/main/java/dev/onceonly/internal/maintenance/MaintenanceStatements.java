package dev.onceonly.internal.maintenance;

import dev.onceonly.internal.dialect.SqlDialect;

/**
 * Every SQL statement of the maintenance operations, built once for a table prefix. The same in
 * every dialect but the bounded purge of rejections: all values are bound as parameters, only the
 * validated prefix is concatenated, and the PostgreSQL and MariaDB schemas declare their text keys
 * with a bytewise collation, so orderings are bytewise there as on SQLite.
 */
final class MaintenanceStatements {
  final String countIntents;
  final String countPending;
  final String oldestPending;
  final String countReceipts;
  final String countMessages;
  final String countLeased;
  final String oldestDue;
  final String oldestDueOfQueue;
  final String countDeadLetteredBetween;
  final String countDeadLetters;
  final String countClaims;
  final String countRejections;
  final String purgeRejections;
  final String oldDeadLetters;
  final String deleteDeadLetter;
  final String deleteAttemptErrors;
  final String deleteUnusedPayload;
  final String recentDeadLetters;
  final String recentDeadLettersOfQueue;
  final String deadLetterPayloadRef;
  final String listedPayloadRef;
  final String deleteListedDeadLetter;
  final String receiptKeysPage;
  final String countForgotten;
  final String forgotten;
  final String countStaleMessages;
  final String staleMessages;
  final String countStaleClaims;
  final String staleClaims;
  final String liveLeases;
  final String queuePage;
  final String queuePageNamed;
  final String countQueues;
  final String countQueuesNamed;

  MaintenanceStatements(String p, SqlDialect dialect) {
    String withoutReceipt =
        " FROM "
            + p
            + "intents i WHERE NOT EXISTS (SELECT 1 FROM "
            + p
            + "receipts r WHERE r.scope = i.scope AND r.intent_key = i.intent_key)";
    countIntents = "SELECT COUNT(*) FROM " + p + "intents";
    countPending = "SELECT COUNT(*)" + withoutReceipt;
    oldestPending =
        "SELECT i.scope, i.intent_key, i.created_at"
            + withoutReceipt
            + " ORDER BY i.created_at, i.scope, i.intent_key LIMIT 1";
    // parameters: now, now
    countReceipts =
        "SELECT COALESCE(SUM(CASE WHEN result IS NOT NULL AND expires_at > ? THEN 1 ELSE 0 END), 0),"
            + " COALESCE(SUM(CASE WHEN result IS NOT NULL AND expires_at <= ? THEN 1 ELSE 0 END),"
            + " 0), COALESCE(SUM(CASE WHEN result IS NULL THEN 1 ELSE 0 END), 0) FROM "
            + p
            + "receipts";
    // A claim sets leased = 1 and each write that ends the lease (retry, reschedule, release)
    // leased = 0: a message not due is leased exactly when leased = 1. Due and all messages come
    // from the messages_due index alone (queue and deliver_at are its first columns), the leased
    // ones from the partial messages_leased index, so no message row is read; delayed is the rest.
    // Parameters: now.
    countMessages =
        "SELECT queue, SUM(CASE WHEN deliver_at <= ? THEN 1 ELSE 0 END), COUNT(*) FROM "
            + p
            + "messages GROUP BY queue ORDER BY queue";
    // parameters: now
    countLeased =
        "SELECT queue, COUNT(*) FROM "
            + p
            + "messages WHERE leased = 1 AND deliver_at > ? GROUP BY queue";
    oldestDue = "SELECT MIN(deliver_at) FROM " + p + "messages WHERE deliver_at <= ?";
    // parameters: queue, now; a seek on messages_due
    oldestDueOfQueue =
        "SELECT MIN(deliver_at) FROM " + p + "messages WHERE queue = ? AND deliver_at <= ?";
    // parameters: from (inclusive), to (exclusive); a range of dead_letters_dead_at
    countDeadLetteredBetween =
        "SELECT COUNT(*) FROM " + p + "dead_letters WHERE dead_at >= ? AND dead_at < ?";
    countDeadLetters =
        "SELECT queue, COUNT(*) FROM " + p + "dead_letters GROUP BY queue ORDER BY queue";
    countClaims = "SELECT state, COUNT(*) FROM " + p + "claims GROUP BY state ORDER BY state";
    countRejections = "SELECT COUNT(*) FROM " + p + "rejections";
    purgeRejections =
        dialect.deleteFirst(
            p + "rejections", "delivery_id", "created_at < ?", "created_at, delivery_id");
    oldDeadLetters =
        "SELECT queue, message_key, payload_ref FROM "
            + p
            + "dead_letters WHERE dead_at < ? ORDER BY dead_at, queue, message_key LIMIT ?";
    deleteDeadLetter = "DELETE FROM " + p + "dead_letters WHERE queue = ? AND message_key = ?";
    // a dead letter's key goes with its history, even one a message of the key added to since
    deleteAttemptErrors = "DELETE FROM " + p + "attempt_errors WHERE queue = ? AND message_key = ?";
    String recent =
        "SELECT queue, message_key, attempts, last_error, dead_at FROM " + p + "dead_letters";
    // parameters: (queue), limit, offset
    String newestFirst = " ORDER BY dead_at DESC, queue, message_key LIMIT ? OFFSET ?";
    recentDeadLetters = recent + newestFirst;
    recentDeadLettersOfQueue = recent + " WHERE queue = ?" + newestFirst;
    deadLetterPayloadRef =
        "SELECT payload_ref FROM " + p + "dead_letters WHERE queue = ? AND message_key = ?";
    listedPayloadRef = deadLetterPayloadRef + " AND dead_at = ?";
    deleteListedDeadLetter = deleteDeadLetter + " AND dead_at = ?";
    deleteUnusedPayload =
        "DELETE FROM "
            + p
            + "payloads WHERE payload_ref = ? AND NOT EXISTS (SELECT 1 FROM "
            + p
            + "messages WHERE payload_ref = ?) AND NOT EXISTS (SELECT 1 FROM "
            + p
            + "dead_letters WHERE payload_ref = ?)";

    // parameters: operation, after scope, after scope, after key, limit
    receiptKeysPage =
        "SELECT scope, intent_key FROM "
            + p
            + "receipts WHERE operation = ? AND result IS NOT NULL"
            + " AND (scope > ? OR (scope = ? AND intent_key > ?)) ORDER BY scope, intent_key LIMIT ?";
    // parameters: registered before
    countForgotten = "SELECT COUNT(*)" + withoutReceipt + " AND i.created_at < ?";
    // parameters: registered before, limit
    forgotten =
        "SELECT i.scope, i.intent_key, i.created_at"
            + withoutReceipt
            + " AND i.created_at < ? ORDER BY i.created_at, i.scope, i.intent_key LIMIT ?";
    // leased (as countMessages) with the lease run out before the parameter; a lease taken over
    // after it ran out is leased again and not stale
    String staleMessage = " FROM " + p + "messages WHERE leased = 1 AND deliver_at < ?";
    countStaleMessages = "SELECT COUNT(*)" + staleMessage;
    staleMessages =
        "SELECT queue, message_key, deliver_at"
            + staleMessage
            + " ORDER BY deliver_at, queue, message_key LIMIT ?";
    // parameters: the two held states, lease run out before, (limit)
    String staleClaim = " FROM " + p + "claims WHERE state IN (?, ?) AND lease_until < ?";
    countStaleClaims = "SELECT COUNT(*)" + staleClaim;
    staleClaims =
        "SELECT scope, intent_key, lease_until"
            + staleClaim
            + " ORDER BY lease_until, scope, intent_key LIMIT ?";
    // parameters: queue, now, limit; a leased message's deliver_at is the end of its lease
    liveLeases =
        "SELECT message_key, id, attempts, deliver_at FROM "
            + p
            + "messages WHERE queue = ? AND leased = 1 AND deliver_at > ?"
            + " ORDER BY deliver_at, id LIMIT ?";

    // Every queue that holds a message or a dead letter. The names are found one index seek after
    // the other (a loose index scan: the next name is the first above the last one), on
    // messages_due and on the dead letters' key, both led by the queue: Q queues cost about 2Q
    // seeks however many messages they hold, where a UNION of the two tables' queue columns read
    // and sorted every message's queue (on PostgreSQL an external sort, 15 s at 10 million).
    // The counts are grouped from the indexes messages_due, messages_leased and the dead letters'
    // key; the database sorts the groups and cuts the page.
    // Parameters: now, now, (name part), limit, offset.
    String withNames =
        "WITH RECURSIVE "
            + nextName("mq", p + "messages")
            + ", "
            + nextName("dq", p + "dead_letters")
            + " ";
    String names =
        "(SELECT queue FROM mq WHERE queue IS NOT NULL"
            + " UNION SELECT queue FROM dq WHERE queue IS NOT NULL) q";
    String pageOf =
        withNames
            + "SELECT q.queue, COALESCE(m.due, 0), COALESCE(l.leased, 0), COALESCE(m.depth, 0),"
            + " COALESCE(d.dead, 0) FROM "
            + names
            + " LEFT JOIN (SELECT queue, SUM(CASE WHEN deliver_at <= ? THEN 1 ELSE 0 END) AS due,"
            + " COUNT(*) AS depth FROM "
            + p
            + "messages GROUP BY queue) m ON m.queue = q.queue"
            + " LEFT JOIN (SELECT queue, COUNT(*) AS leased FROM "
            + p
            + "messages WHERE leased = 1 AND deliver_at > ? GROUP BY queue) l ON l.queue = q.queue"
            + " LEFT JOIN (SELECT queue, COUNT(*) AS dead FROM "
            + p
            + "dead_letters GROUP BY queue) d ON d.queue = q.queue";
    String deepest =
        " ORDER BY COALESCE(m.depth, 0) DESC, COALESCE(d.dead, 0) DESC, q.queue LIMIT ? OFFSET ?";
    String named = " WHERE " + dialect.contains("q.queue");
    queuePage = pageOf + deepest;
    queuePageNamed = pageOf + named + deepest;
    countQueues = withNames + "SELECT COUNT(*) FROM " + names;
    countQueuesNamed = countQueues + named;
  }

  /**
   * {@return a recursive common table {@code name(queue)} of the distinct queue names of {@code
   * table}, in order, ending with one null (the only row when the table is empty)}: the first is
   * the smallest name, each step one seek for the first name above the last, on an index led by
   * {@code queue}.
   */
  private static String nextName(String name, String table) {
    String next = "(SELECT t.queue FROM " + table + " t WHERE t.queue > " + name + ".queue";
    return name
        + "(queue) AS (SELECT MIN(queue) FROM "
        + table
        + " UNION ALL SELECT "
        + next
        + " ORDER BY t.queue LIMIT 1) FROM "
        + name
        + " WHERE "
        + name
        + ".queue IS NOT NULL)";
  }
}
