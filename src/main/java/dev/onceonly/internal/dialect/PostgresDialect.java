package dev.onceonly.internal.dialect;

import dev.onceonly.Durability;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;

/**
 * PostgreSQL: writers run side by side under READ COMMITTED. Steps on one key are kept apart by a
 * transaction-scoped advisory lock (released by {@code COMMIT} or {@code ROLLBACK}, so no session
 * state outlives a transaction and PgBouncer's transaction pooling works); a serialization failure
 * or a detected deadlock runs again; claims skip rows another claim holds. Instants are {@code
 * timestamptz}.
 */
final class PostgresDialect implements SqlDialect {
  static final PostgresDialect INSTANCE = new PostgresDialect();

  private PostgresDialect() {}

  @Override
  public Dialect id() {
    return Dialect.POSTGRESQL;
  }

  @Override
  public void begin(Connection c) throws SQLException {
    c.setAutoCommit(false);
  }

  /** A serialization failure ({@code 40001}) or a detected deadlock ({@code 40P01}). */
  @Override
  public boolean retryable(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state) || "40P01".equals(state);
  }

  /**
   * Also the server shutting down or crashing under the session ({@code 57P01}, {@code 57P02}) and
   * a server still starting ({@code 57P03}), as during a failover.
   */
  @Override
  public boolean connectionLost(SQLException e) {
    String state = e.getSQLState();
    return SqlDialect.super.connectionLost(e)
        || "57P01".equals(state)
        || "57P02".equals(state)
        || "57P03".equals(state);
  }

  @Override
  public boolean locksKeys() {
    return true;
  }

  @Override
  public void lockKey(Connection c, String prefix, int space, int name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(?, ?)")) {
      ps.setInt(1, space);
      ps.setInt(2, name);
      ps.execute();
    }
  }

  /** Read from the current transaction ({@code READ UNCOMMITTED} reads as committed here). */
  @Override
  public String snapshotReads() {
    return "current_setting('transaction_isolation') NOT IN ('read committed', 'read uncommitted')";
  }

  @Override
  public String shareLock() {
    return " FOR SHARE";
  }

  @Override
  public InstantColumns instants() {
    return InstantColumns.TIMESTAMPTZ;
  }

  @Override
  public String instantType() {
    return "TIMESTAMPTZ";
  }

  /** Resolved through {@code search_path}, as the queries' table names are. */
  @Override
  public String tableExists() {
    return "SELECT to_regclass(?) IS NOT NULL";
  }

  @Override
  public Optional<String> serverClock() {
    return Optional.of(
        "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)");
  }

  @Override
  public Durability durability(Connection c) throws SQLException {
    return ServerDurability.postgres(c);
  }

  @Override
  public boolean notifiesSends() {
    return true;
  }

  @Override
  public String columnExists() {
    return "SELECT EXISTS (SELECT 1 FROM pg_attribute"
        + " WHERE attrelid = to_regclass(?) AND attname = ? AND NOT attisdropped)";
  }

  /**
   * One statement: lock the due rows nobody else has locked ({@code SKIP LOCKED}, so concurrent
   * receivers take disjoint rows instead of queueing behind each other), move them to the end of
   * the lease and bump their fence, and return them.
   *
   * <p>The rows are picked by a plan that reads about as many index entries as it takes, whatever
   * the table's statistics say. The queue, the time and the count reach the picking through a
   * one-row {@code a} and sub-selects, so the planner sees parameters and a limit of unknown size,
   * and walks an index in claim order instead of gathering every due message of the queue with a
   * bitmap scan and sorting them (the plan it takes for a table filled faster than {@code ANALYZE}
   * ran, estimating a few due rows: then each claim cost time in proportion to the backlog). With
   * priorities, an ordered index scan of {@code messages_priority_due} would test every message of
   * a priority, due or not, before the next; instead the recursive {@code p} walks the queue's
   * distinct priorities from the highest (one index probe each), and for each the due messages are
   * a range of that index in {@code deliver_at, id} order, read lazily until the claim has its
   * count. The oldest-first claim is one range of {@code messages_due}.
   *
   * <p>The update finds the picked rows by their keys in an array ({@code id = ANY}), a probe of
   * the primary key each. Joined to {@code due} instead, the planner took the unknown limit for a
   * tenth of the table once statistics said the table was large, and hashed every message to join
   * them: a sequential scan of the whole backlog for each claim.
   */
  @Override
  public String claim(String m, String pauses, boolean oldestFirst) {
    // A paused queue leaves a empty: every condition on its queue is then on null, and none holds.
    String args =
        "b AS (SELECT CAST(? AS TEXT) AS queue, CAST(? AS TIMESTAMPTZ) AS now,"
            + " CAST(? AS INTEGER) AS n), a AS (SELECT queue, now, n FROM b WHERE "
            + SqlDialect.unpaused(pauses, "b.queue")
            + ")";
    String queue = "(SELECT queue FROM a)";
    String n = "(SELECT n FROM a)";
    String due =
        oldestFirst
            ? "WITH "
                + args
                + ", due AS (SELECT id FROM "
                + m
                + " WHERE queue = "
                + queue
                + " AND deliver_at <= (SELECT now FROM a) ORDER BY deliver_at, id LIMIT "
                + n
                + " FOR UPDATE SKIP LOCKED)"
            : "WITH RECURSIVE "
                + args
                + ", p AS ((SELECT priority FROM "
                + m
                + " WHERE queue = "
                + queue
                + " ORDER BY priority DESC LIMIT 1) UNION ALL SELECT (SELECT priority FROM "
                + m
                + " WHERE queue = "
                + queue
                + " AND priority < p.priority ORDER BY priority DESC LIMIT 1) FROM p"
                + " WHERE p.priority IS NOT NULL), due AS (SELECT d.id FROM p CROSS"
                + " JOIN LATERAL (SELECT id FROM "
                + m
                + " WHERE queue = "
                + queue
                + " AND priority = p.priority AND deliver_at <= (SELECT now FROM a)"
                + " ORDER BY deliver_at, id LIMIT "
                + n
                + " FOR UPDATE SKIP LOCKED) d LIMIT "
                + n
                + ")";
    return due
        + ", claimed AS (UPDATE "
        + m
        + " x SET deliver_at = ?, fence = x.fence + 1, attempts = x.attempts + 1, leased = 1,"
        + " first_claimed_at = COALESCE(x.first_claimed_at, ?)"
        + " WHERE x.id = ANY (ARRAY(SELECT id FROM due))"
        + " RETURNING x.id, x.message_key, x.payload, x.payload_ref, x.fence, x.attempts,"
        + " x.created_at, x.last_error, x.priority, x.traceparent)"
        + " SELECT id, message_key, payload, payload_ref, fence, attempts, created_at, last_error,"
        + " priority, traceparent FROM claimed";
  }

  @Override
  public void bindClaim(PreparedStatement ps, String queue, long now, int max, long until)
      throws SQLException {
    InstantColumns t = instants();
    ps.setString(1, queue);
    t.set(ps, 2, now);
    ps.setInt(3, max);
    t.set(ps, 4, until);
    t.set(ps, 5, now);
  }

  /**
   * One {@code DELETE} joined with the pairs unnested from two arrays, so a batch of
   * acknowledgements costs one round trip instead of one per lease; each deleted row stays locked
   * until the transaction ends, as with a {@code DELETE} per lease.
   */
  @Override
  public Optional<String> ackMany(String m) {
    return Optional.of(
        "DELETE FROM "
            + m
            + " x USING unnest(CAST(? AS BIGINT[]), CAST(? AS BIGINT[])) AS l(id, fence)"
            + " WHERE x.id = l.id AND x.fence = l.fence RETURNING x.id, x.fence, x.payload_ref,"
            + " CASE WHEN x.last_error IS NULL THEN 0 ELSE 1 END");
  }

  @Override
  public String decrementToZero(String expression) {
    return "GREATEST(" + expression + " - 1, 0)";
  }

  @Override
  public String distinct(String left, String right) {
    return left + " IS DISTINCT FROM " + right;
  }

  /** {@return {@code strpos}'s substring test; the column's binary collation makes it exact} */
  @Override
  public String contains(String column) {
    return "strpos(" + column + ", ?) > 0";
  }
}
