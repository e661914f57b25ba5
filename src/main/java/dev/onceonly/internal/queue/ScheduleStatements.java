package dev.onceonly.internal.queue;

import dev.onceonly.internal.db.StatementCache;
import dev.onceonly.internal.dialect.SqlDialect;
import java.lang.invoke.MethodHandles;

/**
 * Every SQL statement of the schedules, built once for a table prefix; the same in every dialect
 * but the insert if absent.
 */
final class ScheduleStatements {
  static final String COLUMNS =
      "name, queue, spec, catch_up, payload, anchor, next_run, last_slot, last_key, paused";

  final String insert;
  final String find;
  final String list;
  final String replace;
  final String pause;
  final String resume;
  final String delete;
  final String dueOfQueue;
  final String due;
  final String advance;
  final String waitingOfQueue;
  final String waiting;
  final String release;
  final String nextOfQueue;

  ScheduleStatements(String p, SqlDialect dialect) {
    String s = p + "schedules";
    insert =
        dialect.insertOrNothing(
            "INSERT INTO "
                + s
                + " ("
                + COLUMNS
                + ", created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, 0, ?, ?)",
            "name");
    find = "SELECT " + COLUMNS + " FROM " + s + " WHERE name = ?";
    list = "SELECT " + COLUMNS + " FROM " + s + " ORDER BY name";
    replace =
        "UPDATE "
            + s
            + " SET queue = ?, spec = ?, catch_up = ?, payload = ?, anchor = ?,"
            + " next_run = CASE WHEN paused = 0 THEN ? END, updated_at = ? WHERE name = ?";
    pause =
        "UPDATE "
            + s
            + " SET paused = 1, next_run = NULL, updated_at = ? WHERE name = ? AND paused = 0";
    resume =
        "UPDATE "
            + s
            + " SET paused = 0, next_run = ?, updated_at = ? WHERE name = ? AND paused = 1";
    delete = "DELETE FROM " + s + " WHERE name = ?";
    String dueWhere = " paused = 0 AND next_run <= ? ORDER BY next_run, name LIMIT ?";
    dueOfQueue = "SELECT " + COLUMNS + " FROM " + s + " WHERE queue = ? AND" + dueWhere;
    due = "SELECT " + COLUMNS + " FROM " + s + " WHERE" + dueWhere;
    advance =
        "UPDATE "
            + s
            + " SET next_run = ?, last_slot = ?, last_key = ?, updated_at = ?"
            + " WHERE name = ? AND next_run = ?";
    String waitingWhere =
        " paused = 0 AND next_run IS NULL AND last_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
            + p
            + "messages m WHERE m.queue = s.queue AND m.message_key = s.last_key)";
    waitingOfQueue = "SELECT " + COLUMNS + " FROM " + s + " s WHERE s.queue = ? AND" + waitingWhere;
    waiting = "SELECT " + COLUMNS + " FROM " + s + " s WHERE" + waitingWhere;
    release =
        "UPDATE "
            + s
            + " SET next_run = ?, updated_at = ?"
            + " WHERE name = ? AND paused = 0 AND next_run IS NULL AND last_key = ?";
    nextOfQueue =
        "SELECT MIN(next_run), COUNT(CASE WHEN next_run IS NULL AND last_key IS NOT NULL"
            + " AND paused = 0 THEN 1 END) FROM "
            + s
            + " WHERE queue = ?";
    StatementCache.registerFields(this, MethodHandles.lookup());
  }
}
