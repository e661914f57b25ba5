package dev.onceonly.internal.dialect;

import dev.onceonly.Durability;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;

/**
 * SQLite: one writer at a time. A write transaction is {@code BEGIN IMMEDIATE}, which takes the
 * write lock before anything is read, so steps never need locks of their own and nothing is retried
 * by the library (a busy file waits in {@code busy_timeout}). Instants are epoch milliseconds.
 */
final class SqliteDialect implements SqlDialect {
  static final SqliteDialect INSTANCE = new SqliteDialect();

  private SqliteDialect() {}

  @Override
  public Dialect id() {
    return Dialect.SQLITE;
  }

  @Override
  public void begin(Connection c) throws SQLException {
    if (!c.getAutoCommit()) {
      c.setAutoCommit(true); // the driver's implicit deferred BEGIN would defeat IMMEDIATE
    }
    SqliteWriteTurn.enter(c, c); // queue in memory with this process's other writers
    try {
      execute(c, "BEGIN IMMEDIATE");
    } catch (SQLException | RuntimeException e) {
      SqliteWriteTurn.leave(c, c);
      throw e;
    }
  }

  @Override
  public void commit(Connection c) throws SQLException {
    execute(c, "COMMIT"); // a failed commit keeps the turn until its rollback
    SqliteWriteTurn.leave(c, c);
  }

  @Override
  public void rollback(Connection c) throws SQLException {
    try {
      execute(c, "ROLLBACK"); // fails harmlessly (and is attached) if SQLite already rolled back
    } finally {
      SqliteWriteTurn.leave(c, c);
    }
  }

  @Override
  public boolean retryable(SQLException e) {
    return false;
  }

  @Override
  public boolean locksKeys() {
    return false;
  }

  @Override
  public void lockKey(Connection c, String prefix, int space, int name) {
    // BEGIN IMMEDIATE already excludes every other writer
  }

  @Override
  public InstantColumns instants() {
    return InstantColumns.MILLIS;
  }

  @Override
  public String instantType() {
    return "BIGINT";
  }

  @Override
  public String tableExists() {
    return "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?";
  }

  @Override
  public Optional<String> serverClock() {
    return Optional.empty();
  }

  @Override
  public Durability durability(Connection c) throws SQLException {
    return ServerDurability.sqlite(c);
  }

  @Override
  public boolean notifiesSends() {
    return false;
  }

  /**
   * Runs under {@code BEGIN IMMEDIATE}: no other writer can claim the same rows, so one {@code
   * UPDATE} over the due rows is enough.
   */
  @Override
  public String columnExists() {
    return "SELECT COUNT(*) > 0 FROM pragma_table_info(?) WHERE name = ?";
  }

  @Override
  public String claim(String m, String pauses, boolean oldestFirst) {
    return "UPDATE "
        + m
        + " SET deliver_at = ?, fence = fence + 1, attempts = attempts + 1, leased = 1,"
        + " first_claimed_at = COALESCE(first_claimed_at, ?)"
        + " WHERE id IN (SELECT id FROM "
        + m
        + " WHERE queue = ? AND deliver_at <= ? AND "
        + SqlDialect.unpaused(pauses, m + ".queue")
        + " ORDER BY "
        + (oldestFirst ? "" : "priority DESC, ")
        + "deliver_at, id LIMIT ?)"
        + " RETURNING id, message_key, payload, payload_ref, fence, attempts, created_at,"
        + " last_error, priority, traceparent";
  }

  @Override
  public void bindClaim(PreparedStatement ps, String queue, long now, int max, long until)
      throws SQLException {
    ps.setLong(1, until);
    ps.setLong(2, now);
    ps.setString(3, queue);
    ps.setLong(4, now);
    ps.setInt(5, max);
  }

  /** None: a statement per lease is a call into the library, not a round trip. */
  @Override
  public Optional<String> ackMany(String m) {
    return Optional.empty();
  }

  @Override
  public String notIndexed(String column) {
    return "+" + column;
  }

  @Override
  public String decrementToZero(String expression) {
    return "MAX(" + expression + " - 1, 0)";
  }

  @Override
  public String distinct(String left, String right) {
    return left + " IS NOT " + right;
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.execute();
    }
  }
}
