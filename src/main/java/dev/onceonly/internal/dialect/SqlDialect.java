package dev.onceonly.internal.dialect;

import dev.onceonly.Durability;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What one database does differently, in one place: its transactions, its retryable failures, its
 * key locks, its instant columns and the handful of statements that cannot be written once for all.
 * The stores hold the rest of their SQL themselves and ask this seam only for these parts.
 */
public interface SqlDialect {
  /** {@return the seam of {@code dialect}} */
  static SqlDialect of(Dialect dialect) {
    return switch (dialect) {
      case SQLITE -> SqliteDialect.INSTANCE;
      case POSTGRESQL -> PostgresDialect.INSTANCE;
      case MARIADB -> MariaDbDialect.INSTANCE;
    };
  }

  /** {@return the public name of this dialect} */
  Dialect id();

  // --- transactions --------------------------------------------------------------------------

  /** Begins a write transaction on {@code c}, which is in auto-commit mode or about to be. */
  void begin(Connection c) throws SQLException;

  /** Commits the transaction {@link #begin} started and returns {@code c} to auto-commit. */
  default void commit(Connection c) throws SQLException {
    c.commit();
    c.setAutoCommit(true);
  }

  /** Rolls back the transaction {@link #begin} started and returns {@code c} to auto-commit. */
  default void rollback(Connection c) throws SQLException {
    c.rollback();
    c.setAutoCommit(true);
  }

  /**
   * Returns whether a transaction that failed with {@code e} may simply run again: the server
   * rolled it back for a reason of its own (a serialization failure, a detected deadlock), not
   * because of what it did.
   */
  boolean retryable(SQLException e);

  /**
   * Returns whether {@code e} says the connection is gone or none could be had (SQL state class
   * {@code 08}, or a driver's connection exception), so that the same work may run again once the
   * server answers.
   */
  default boolean connectionLost(SQLException e) {
    String state = e.getSQLState();
    return (state != null && state.startsWith("08"))
        || e instanceof java.sql.SQLRecoverableException
        || e instanceof java.sql.SQLTransientConnectionException
        || e instanceof java.sql.SQLNonTransientConnectionException;
  }

  /**
   * Returns whether two steps on one key must be kept apart by a lock of their own. Where a write
   * transaction already excludes every other writer (SQLite's {@code BEGIN IMMEDIATE}) they need
   * none; where writers run side by side, the first step on a key has no row to lock yet.
   */
  boolean locksKeys();

  /**
   * Takes a lock on {@code (space, name)} held until the transaction ends, so nothing outlives it;
   * called only when {@link #locksKeys()}.
   */
  void lockKey(Connection c, String prefix, int space, int name) throws SQLException;

  /**
   * Keeps migrations of the tables under {@code prefix} apart until {@link #unlockMigrations}: by
   * default the key lock, held until the transaction ends; where DDL commits implicitly (MariaDB) a
   * lock of the session's, which outlives those commits.
   */
  default void lockMigrations(Connection c, String prefix) throws SQLException {
    if (locksKeys()) {
      lockKey(c, prefix, MIGRATION_LOCK_SPACE, prefix.hashCode());
    }
  }

  /** Releases what {@link #lockMigrations} took, where the transaction's end does not. */
  default void unlockMigrations(Connection c, String prefix) throws SQLException {}

  /** The lock space of migrations (an arbitrary constant: "OnceMigr" folded). */
  int MIGRATION_LOCK_SPACE = 0x4f6e4d67;

  // --- columns and lookups --------------------------------------------------------------------

  /** {@return how this dialect binds and reads instants} */
  InstantColumns instants();

  /** {@return the column type of an instant, for tables created outside the scripts} */
  String instantType();

  /**
   * {@return a query with one parameter, a table name, whose one row's one column is true when the
   * table exists}, without failing when it does not (a failed query aborts a PostgreSQL
   * transaction)
   */
  String tableExists();

  /**
   * {@return a query with two parameters, a table name and a column name, whose one row's one
   * column is true when the table has that column}, without failing when it does not
   */
  String columnExists();

  /**
   * {@return a query whose one row's one column is the server's clock in epoch milliseconds}, or
   * nothing when the database has no clock of its own to agree on (an embedded file)
   */
  Optional<String> serverClock();

  /** {@return whether sends can wake receivers in other processes through the database} */
  boolean notifiesSends();

  /**
   * Reads, on {@code c}, whether the server keeps what it answers: through its own crash and
   * through a failover to a standby.
   */
  Durability durability(Connection c) throws SQLException;

  // --- statements that differ -----------------------------------------------------------------

  /**
   * {@return the claim of the job queue on the table {@code messages}}: the due messages of one
   * queue, highest priority first and oldest first within one (or, if {@code oldestFirst}, oldest
   * first whatever their priority), at most a given number, moved to the end of their lease with
   * their fence and attempts bumped, returning {@code id, message_key, payload, payload_ref, fence,
   * attempts, created_at, last_error, priority}. A queue with a row in {@code pauses} (see {@link
   * #unpaused}) has no due message: the claim leases nothing, in the same statement. Parameters are
   * bound by {@link #bindClaim}.
   */
  String claim(String messages, String pauses, boolean oldestFirst);

  /**
   * {@return the condition that the queue named by {@code queue} (a column or an expression of the
   * claim) has no row in the table {@code pauses}}: the pause of a queue, checked in the claim's
   * own statement. A plain read, never a locking one, so pausing and resuming never wait for
   * claims. Written {@code NOT IN} over the pauses' keys (never null: the key of the table), which
   * every dialect evaluates once per statement: PostgreSQL planned the correlated {@code NOT
   * EXISTS} as an anti join estimated at one row, and over partitions then read and sorted every
   * due message for each claim.
   */
  static String unpaused(String pauses, String queue) {
    return queue + " NOT IN (SELECT z.queue FROM " + pauses + " z)";
  }

  /** Binds the parameters of {@link #claim}; instants in epoch milliseconds. */
  void bindClaim(PreparedStatement ps, String queue, long now, int max, long until)
      throws SQLException;

  /**
   * {@return the claim of chosen messages on the table {@code messages}}: those of {@code ids}
   * (exactly {@code ids} parameters) that are still due, leased as {@link #claim} leases, returning
   * the same columns. Parameters are bound by {@link #bindClaimIds}. By default one {@code UPDATE
   * ... RETURNING}; its {@code deliver_at} test is for PostgreSQL's recheck of a row another
   * transaction changed meanwhile, and on SQLite it must not pick the due index over the ids.
   */
  default String claimIds(String messages, int ids) {
    return "UPDATE "
        + messages
        + " SET deliver_at = ?, fence = fence + 1, attempts = attempts + 1, leased = 1,"
        + " first_claimed_at = COALESCE(first_claimed_at, ?) WHERE id IN ("
        + String.join(", ", Collections.nCopies(ids, "?"))
        + ") AND "
        + notIndexed("deliver_at")
        + " <= ? RETURNING "
        + CLAIMED_COLUMNS;
  }

  /** Binds the parameters of {@link #claimIds}: every id, padded by repeating the last. */
  default void bindClaimIds(PreparedStatement ps, int size, List<Long> ids, long now, long until)
      throws SQLException {
    InstantColumns t = instants();
    t.set(ps, 1, until);
    t.set(ps, 2, now);
    for (int i = 0; i < size; i++) {
      ps.setLong(3 + i, ids.get(Math.min(i, ids.size() - 1)));
    }
    t.set(ps, 3 + size, now);
  }

  /**
   * Runs a bound {@link #claim} or {@link #claimIds} on {@code c}, in its open transaction, and
   * returns the claimed rows, whose statement closes with them. By default the statement itself
   * returns them.
   *
   * @param c the connection, in the claim's transaction
   * @param claim the bound claim
   * @param messages the table the statement claims from
   * @param now the claim's time, in epoch milliseconds
   * @param until the end of the leases, in epoch milliseconds
   * @return the claimed rows
   * @throws SQLException if a statement fails
   */
  default ResultSet claimed(
      Connection c, PreparedStatement claim, String messages, long now, long until)
      throws SQLException {
    return claim.executeQuery();
  }

  /** The columns a claim returns, in order. */
  String CLAIMED_COLUMNS =
      "id, message_key, payload, payload_ref, fence, attempts, created_at, last_error, priority,"
          + " traceparent";

  /**
   * Refuses the server's or the session's settings under which the library's statements would fail
   * or store something else, read once when a store opens ({@link
   * dev.onceonly.ServerSettingException}); nothing to refuse by default.
   *
   * @return the largest statement the server takes, in bytes ({@link Long#MAX_VALUE} by default)
   */
  default long checkAtOpen(Connection c) throws SQLException {
    return Long.MAX_VALUE;
  }

  /**
   * Refuses a session setting on the first use of a connection the library opens or joins; nothing
   * by default.
   */
  default void checkSession(Connection c) throws SQLException {}

  /**
   * {@return an SQL expression, true where the current transaction's plain reads may come from a
   * snapshot older than the statement} ({@code REPEATABLE READ}, {@code SERIALIZABLE}), so that a
   * step joined to it could miss a receipt committed meanwhile; false by default (SQLite, whose
   * write transactions exclude every other writer).
   */
  default String snapshotReads() {
    return "0";
  }

  /**
   * {@return what follows a {@code SELECT} to make it a locking read of a row that exists}, which
   * reads the latest committed version where the server does so (InnoDB); empty by default.
   */
  default String shareLock() {
    return "";
  }

  /**
   * Returns whether {@code e} says a write met a row committed after the transaction's snapshot
   * that the snapshot cannot see (a serialization failure, {@code 40001}).
   */
  default boolean snapshotTooOld(SQLException e) {
    return "40001".equals(e.getSQLState());
  }

  /**
   * {@return {@code insert}, an {@code INSERT INTO ... VALUES} or {@code INSERT INTO ... SELECT},
   * made to replace the columns {@code updated} of the row with the same {@code conflictColumns} (a
   * unique key) where there is one}, with the values it would have inserted. {@code ON CONFLICT
   * (...) DO UPDATE SET c = excluded.c} by default.
   */
  default String upsert(String insert, String conflictColumns, List<String> updated) {
    return insert
        + " ON CONFLICT ("
        + conflictColumns
        + ") DO UPDATE SET "
        + updated.stream().map(u -> u + " = excluded." + u).collect(Collectors.joining(", "));
  }

  /**
   * {@return a condition true when the text of {@code column} holds the statement's next parameter
   * as a substring, exactly (case and all, no pattern characters)}. By default SQLite's {@code
   * instr}; a dialect whose function is spelled otherwise overrides it.
   */
  default String contains(String column) {
    return "instr(" + column + ", ?) > 0";
  }

  /**
   * {@return a {@code DELETE} of the first rows of {@code table} by {@code order} that match {@code
   * where}}, at most as many as its last parameter. By default through a subquery on the key
   * columns {@code keys}, as {@link #updateFirst} does.
   */
  default String deleteFirst(String table, String keys, String where, String order) {
    return "DELETE FROM " + table + " WHERE " + firstKeys(table, keys, where, order);
  }

  /** The condition of {@link #updateFirst} and {@link #deleteFirst}: a subquery on the keys. */
  private static String firstKeys(String table, String keys, String where, String order) {
    return "("
        + keys
        + ") IN (SELECT "
        + keys
        + " FROM "
        + table
        + " WHERE "
        + where
        + " ORDER BY "
        + order
        + " LIMIT ?)";
  }

  /**
   * {@return the fenced acknowledgement of many leases in one statement}, or nothing where a
   * statement per lease costs no more (an embedded database: no round trip to a server). The
   * statement takes two {@code BIGINT} arrays, the message ids and the fences pair by pair; deletes
   * the messages whose {@code (id, fence)} is one of the pairs; and returns {@code id, fence,
   * payload_ref} of each message it deleted, and 1 if its {@code last_error} is set, else 0.
   */
  Optional<String> ackMany(String messages);

  /**
   * {@return {@code insert}, an {@code INSERT INTO ... VALUES} or {@code INSERT INTO ... SELECT},
   * made to insert nothing where a row with the same {@code conflictColumns} (a unique key)
   * exists}: its update count says whether it inserted. {@code ON CONFLICT (...) DO NOTHING} by
   * default.
   */
  default String insertOrNothing(String insert, String conflictColumns) {
    return insert + " ON CONFLICT (" + conflictColumns + ") DO NOTHING";
  }

  /**
   * {@return an {@code UPDATE} of {@code table} setting {@code set} on the first rows by {@code
   * order} that match {@code where}}, at most as many as its last parameter. By default through a
   * subquery on the key columns {@code keys}, since neither SQLite (as built by the driver) nor
   * PostgreSQL takes {@code LIMIT} on an {@code UPDATE}.
   */
  default String updateFirst(String table, String keys, String set, String where, String order) {
    return "UPDATE " + table + " SET " + set + " WHERE " + firstKeys(table, keys, where, order);
  }

  /** {@return the longest scope or key, in characters, the key columns hold} */
  default int maxKeyChars() {
    return Integer.MAX_VALUE;
  }

  /** {@return an expression for {@code expression - 1}, never below zero} */
  String decrementToZero(String expression);

  /**
   * {@return {@code column} as an expression that no index serves}: SQLite's unary {@code +}, so
   * that its planner walks the index of a query's order instead of sorting every row a range
   * matches; PostgreSQL's planner weighs the {@code LIMIT} and needs no hint.
   */
  default String notIndexed(String column) {
    return column;
  }

  /**
   * {@return a null-safe inequality of {@code left} and {@code right}: true when they differ or one
   * side is null and the other not}
   */
  String distinct(String left, String right);
}
