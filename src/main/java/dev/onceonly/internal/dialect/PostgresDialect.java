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

  /**
   * One statement: lock the due rows nobody else has locked ({@code SKIP LOCKED}, so concurrent
   * receivers take disjoint rows instead of queueing behind each other), move them to the end of
   * the lease and bump their fence, and return them in due order.
   */
  @Override
  public String columnExists() {
    return "SELECT EXISTS (SELECT 1 FROM pg_attribute"
        + " WHERE attrelid = to_regclass(?) AND attname = ? AND NOT attisdropped)";
  }

  @Override
  public String claim(String m, boolean oldestFirst) {
    return "WITH due AS (SELECT id, deliver_at AS due_at FROM "
        + m
        + " WHERE queue = ? AND deliver_at <= ? ORDER BY "
        + (oldestFirst ? "" : "priority DESC, ")
        + "deliver_at, id LIMIT ?"
        + " FOR UPDATE SKIP LOCKED), claimed AS (UPDATE "
        + m
        + " x SET deliver_at = ?, fence = x.fence + 1, attempts = x.attempts + 1, leased = 1,"
        + " first_claimed_at = COALESCE(x.first_claimed_at, ?) FROM due WHERE x.id = due.id"
        + " RETURNING x.id, x.message_key, x.payload, x.payload_ref, x.fence, x.attempts,"
        + " x.created_at, x.last_error, x.priority, x.traceparent, due.due_at)"
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
            + " WHERE x.id = l.id AND x.fence = l.fence RETURNING x.id, x.fence, x.payload_ref");
  }

  @Override
  public String decrementToZero(String expression) {
    return "GREATEST(" + expression + " - 1, 0)";
  }

  @Override
  public String distinct(String left, String right) {
    return left + " IS DISTINCT FROM " + right;
  }
}
