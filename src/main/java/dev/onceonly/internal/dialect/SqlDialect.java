package dev.onceonly.internal.dialect;

import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;

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
    };
  }

  /** {@return the public name of this dialect} */
  Dialect id();

  // --- transactions --------------------------------------------------------------------------

  /** Begins a write transaction on {@code c}, which is in auto-commit mode or about to be. */
  void begin(Connection c) throws SQLException;

  /** Commits the transaction {@link #begin} started and returns {@code c} to auto-commit. */
  void commit(Connection c) throws SQLException;

  /** Rolls back the transaction {@link #begin} started and returns {@code c} to auto-commit. */
  void rollback(Connection c) throws SQLException;

  /**
   * Returns whether a transaction that failed with {@code e} may simply run again: the server
   * rolled it back for a reason of its own (a serialization failure, a detected deadlock), not
   * because of what it did.
   */
  boolean retryable(SQLException e);

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
  void lockKey(Connection c, int space, int name) throws SQLException;

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

  // --- statements that differ -----------------------------------------------------------------

  /**
   * {@return the claim of the job queue on the table {@code messages}}: the due messages of one
   * queue, highest priority first and oldest first within one (or, if {@code oldestFirst}, oldest
   * first whatever their priority), at most a given number, moved to the end of their lease with
   * their fence and attempts bumped, returning {@code id, message_key, payload, payload_ref, fence,
   * attempts, created_at, last_error, priority}. Parameters are bound by {@link #bindClaim}.
   */
  String claim(String messages, boolean oldestFirst);

  /** Binds the parameters of {@link #claim}; instants in epoch milliseconds. */
  void bindClaim(PreparedStatement ps, String queue, long now, int max, long until)
      throws SQLException;

  /**
   * {@return the fenced acknowledgement of many leases in one statement}, or nothing where a
   * statement per lease costs no more (an embedded database: no round trip to a server). The
   * statement takes two {@code BIGINT} arrays, the message ids and the fences pair by pair; deletes
   * the messages whose {@code (id, fence)} is one of the pairs; and returns {@code id, fence,
   * payload_ref} of each message it deleted.
   */
  Optional<String> ackMany(String messages);

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

  /** {@return the null-safe inequality operator: true when one side is null and the other not} */
  String distinctFrom();
}
