package dev.onceonly.internal.external;

import dev.onceonly.internal.db.StatementCache;
import dev.onceonly.internal.dialect.SqlDialect;
import java.lang.invoke.MethodHandles;

/**
 * Every SQL statement of the external effects, built once for a table prefix. All values are bound
 * as parameters, states included; only the validated prefix is concatenated.
 */
final class ClaimStatements {
  /** The mutable columns, in the order {@code ClaimRow} binds them. */
  static final String MUTABLE =
      "operation, fingerprint, arguments, state, fence, lease_until, attempts, downstream_key,"
          + " result, last_error, failure_class, maybe_applied, next_attempt_at, first_attempt_at,"
          + " cancel_reason, cancel_requested_at, compensates_key, created_at, updated_at,"
          + " completed_at, probes, next_probe_at, last_probe_at, last_probe_answer";

  final String select;
  final String insert;
  final String update;
  final String expired;
  final String unknownPage;

  ClaimStatements(String p, SqlDialect dialect) {
    String t = p + "claims";
    select = "SELECT " + MUTABLE + " FROM " + t + " WHERE scope = ? AND intent_key = ?";
    insert =
        dialect.insertOrNothing(
            "INSERT INTO "
                + t
                + " (scope, intent_key, "
                + MUTABLE
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            "scope, intent_key");
    update =
        "UPDATE "
            + t
            + " SET operation = ?, fingerprint = ?, arguments = ?, state = ?, fence = ?,"
            + " lease_until = ?, attempts = ?, downstream_key = ?, result = ?, last_error = ?,"
            + " failure_class = ?, maybe_applied = ?, next_attempt_at = ?, first_attempt_at = ?,"
            + " cancel_reason = ?, cancel_requested_at = ?, compensates_key = ?, created_at = ?,"
            + " updated_at = ?, completed_at = ?, probes = ?, next_probe_at = ?, last_probe_at = ?,"
            + " last_probe_answer = ?"
            + " WHERE scope = ? AND intent_key = ? AND fence = ? AND state = ?";
    expired =
        "SELECT scope, intent_key FROM "
            + t
            + " WHERE state IN (?, ?) AND lease_until <= ?"
            + " ORDER BY lease_until, scope, intent_key LIMIT ?";
    unknownPage =
        "SELECT scope, intent_key, "
            + MUTABLE
            + " FROM "
            + t
            + " WHERE state = ? AND (scope > ? OR (scope = ? AND intent_key > ?))"
            + " ORDER BY scope, intent_key LIMIT ?";
    StatementCache.registerFields(this, MethodHandles.lookup());
  }
}
