package dev.onceonly.internal.receipts;

import dev.onceonly.internal.db.StatementCache;
import dev.onceonly.internal.dialect.SqlDialect;
import java.lang.invoke.MethodHandles;

/**
 * Every SQL statement of the receipt core, built once for a table prefix. All values are bound as
 * parameters; only the validated prefix is concatenated.
 */
public final class Statements {
  final String insertIntent;
  final String selectIntent;
  final String pendingIntents;
  final String selectReceipt;
  final String lookupStep;
  final String insertReceipt;
  final String claimReceipt;
  final String fillReceipt;
  final String latestReceipt;
  final String deleteReceipt;
  public final String tombstoneExpired;
  final String selectForgotten;
  final String deleteIntent;
  final String insertRejection;
  final String listRejections;
  final String countRejections;

  public Statements(String p, SqlDialect dialect) {
    insertIntent =
        dialect.insertOrNothing(
            "INSERT INTO "
                + p
                + "intents (scope, intent_key, operation, fingerprint, arguments, created_at,"
                + " traceparent) VALUES (?, ?, ?, ?, ?, ?, ?)",
            "scope, intent_key");
    selectIntent =
        "SELECT operation, fingerprint, arguments, created_at, traceparent FROM "
            + p
            + "intents WHERE scope = ? AND intent_key = ?";
    pendingIntents =
        "SELECT i.scope, i.intent_key, i.operation, i.fingerprint, i.arguments, i.created_at,"
            + " i.traceparent FROM "
            + p
            + "intents i WHERE (i.scope > ? OR (i.scope = ? AND i.intent_key > ?))"
            + " AND NOT EXISTS (SELECT 1 FROM "
            + p
            + "receipts r WHERE r.scope = i.scope AND r.intent_key = i.intent_key)"
            + " ORDER BY i.scope, i.intent_key LIMIT ?";
    selectReceipt =
        "SELECT operation, fingerprint, result, created_at, expires_at, forget_at FROM "
            + p
            + "receipts WHERE scope = ? AND intent_key = ?";
    lookupStep =
        "SELECT r.operation, r.fingerprint, r.result, r.created_at, r.expires_at, r.forget_at,"
            + " (SELECT i.fingerprint FROM "
            + p
            + "intents i WHERE i.scope = ? AND i.intent_key = ?), "
            + dialect.snapshotReads()
            + " FROM (SELECT 1 AS one) o LEFT JOIN "
            + p
            + "receipts r ON r.scope = ? AND r.intent_key = ?";
    insertReceipt =
        "INSERT INTO "
            + p
            + "receipts (scope, intent_key, operation, fingerprint, result, created_at,"
            + " expires_at, forget_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    claimReceipt = dialect.insertOrNothing(insertReceipt, "scope, intent_key");
    fillReceipt = "UPDATE " + p + "receipts SET result = ? WHERE scope = ? AND intent_key = ?";
    latestReceipt = selectReceipt + dialect.shareLock();
    deleteReceipt = "DELETE FROM " + p + "receipts WHERE scope = ? AND intent_key = ?";
    tombstoneExpired =
        dialect.updateFirst(
            p + "receipts",
            "scope, intent_key",
            "result = NULL",
            "expires_at <= ? AND forget_at > ? AND result IS NOT NULL",
            "expires_at");
    selectForgotten =
        "SELECT scope, intent_key FROM "
            + p
            + "receipts WHERE forget_at <= ? ORDER BY forget_at LIMIT ?";
    deleteIntent = "DELETE FROM " + p + "intents WHERE scope = ? AND intent_key = ?";
    insertRejection =
        dialect.insertOrNothing(
            "INSERT INTO "
                + p
                + "rejections (delivery_id, reason, body, body_bytes, created_at)"
                + " VALUES (?, ?, ?, ?, ?)",
            "delivery_id");
    listRejections =
        "SELECT delivery_id, reason, body, body_bytes, created_at FROM "
            + p
            + "rejections ORDER BY created_at, delivery_id LIMIT ?";
    countRejections = "SELECT COUNT(*) FROM " + p + "rejections";
    StatementCache.registerFields(this, MethodHandles.lookup());
  }
}
