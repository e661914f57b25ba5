package dev.onceonly.internal.dialect;

import dev.onceonly.Durability;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * MariaDB (InnoDB): writers run side by side, as on PostgreSQL, but with what this family does
 * differently.
 *
 * <ul>
 *   <li>Its default isolation is {@code REPEATABLE READ}, whose snapshot would hide the receipt a
 *       step waited for behind a key lock, and whose gap locks make unrelated inserts wait for each
 *       other. Every transaction this dialect begins runs at {@code READ COMMITTED}, set with
 *       {@code SET TRANSACTION} (the next transaction only), so no session state outlives it.
 *   <li>It has no transaction-scoped advisory lock ({@code GET_LOCK} belongs to the session and
 *       survives {@code COMMIT}). Steps on one key are kept apart by a row lock on the key's bucket
 *       in {@code <prefix>key_locks}, held until the transaction ends.
 *   <li>Its DDL commits implicitly, which would release that row lock in the middle of a migration;
 *       migrations take a session lock ({@code GET_LOCK}) instead, released when they end, and
 *       every script is written to be run again after being cut off half-way.
 *   <li>A detected deadlock (1213) or a lock wait timeout (1205) runs again, as PostgreSQL's {@code
 *       40001} does: the first rolls the transaction back, the second only its last statement, and
 *       the runner rolls back the rest before running again.
 *   <li>Instants are {@code DATETIME(6)} holding UTC ({@link InstantColumns}); key columns are
 *       {@code utf8mb4_nopad_bin}, so keys differing in case, accents or trailing spaces stay
 *       distinct and order bytewise, as on the other two.
 * </ul>
 */
final class MariaDbDialect implements SqlDialect {
  static final MariaDbDialect INSTANCE = new MariaDbDialect();

  /** InnoDB's detected deadlock: the transaction was rolled back. */
  static final int DEADLOCK = 1213;

  /** InnoDB's lock wait timeout: the statement was rolled back, the transaction is still open. */
  static final int LOCK_WAIT_TIMEOUT = 1205;

  /** How long a migration waits for another process's migration, in seconds. */
  private static final int MIGRATION_WAIT_SECONDS = 300;

  private MariaDbDialect() {}

  @Override
  public Dialect id() {
    return Dialect.MARIADB;
  }

  /**
   * Leaves auto-commit and sets {@code READ COMMITTED} for the next transaction only, in one
   * statement, so one round trip: {@code setAutoCommit(false)} and {@code SET TRANSACTION} would be
   * two. ({@code @@tx_isolation} without {@code SESSION} is the next transaction's, as {@code SET
   * TRANSACTION} without it is; the driver reads auto-commit from the server's reply.)
   */
  @Override
  public void begin(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(BEGIN);
    }
  }

  static final String BEGIN = "SET autocommit = 0, @@tx_isolation = 'READ-COMMITTED'";

  /**
   * Commits and returns to auto-commit in one round trip, an anonymous block: {@code COMMIT} and
   * {@code setAutoCommit(true)} would be two. The {@code COMMIT} stays explicit: the implicit one
   * of {@code SET autocommit = 1} alone would carry {@code READ COMMITTED} on to the connection's
   * next transaction (MariaDB 10.11 ends the one-transaction setting only at an explicit end).
   */
  @Override
  public void commit(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(COMMIT);
    }
  }

  static final String COMMIT = "BEGIN NOT ATOMIC COMMIT; SET autocommit = 1; END";

  /** A detected deadlock (1213, SQL state 40001) or a lock wait timeout (1205). */
  @Override
  public boolean retryable(SQLException e) {
    int code = e.getErrorCode();
    return code == DEADLOCK || code == LOCK_WAIT_TIMEOUT || "40001".equals(e.getSQLState());
  }

  @Override
  public boolean locksKeys() {
    return true;
  }

  /**
   * Locks the key's bucket among the rows V1 made ({@value #KEY_LOCK_BUCKETS} of them) with {@code
   * SELECT ... FOR UPDATE}: InnoDB holds the row lock until the transaction ends, a second step on
   * the key waits for it, and nothing is written. Two keys in one bucket only wait for each other.
   *
   * @throws SQLException if the bucket's row is missing (the table was emptied by hand), rather
   *     than going on without a lock
   */
  @Override
  public void lockKey(Connection c, String prefix, int space, int name) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT bucket FROM " + prefix + "key_locks WHERE bucket = ? FOR UPDATE")) {
      int bucket = Math.floorMod(31 * space + name, KEY_LOCK_BUCKETS);
      ps.setInt(1, bucket);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException(
              "no row " + bucket + " in " + prefix + "key_locks: apply V1 again", "55000");
        }
      }
    }
  }

  /** How many rows {@code <prefix>key_locks} holds (V1 makes them). */
  static final int KEY_LOCK_BUCKETS = 16_384;

  @Override
  public void lockMigrations(Connection c, String prefix) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT GET_LOCK(?, ?)")) {
      ps.setString(1, migrationLock(prefix));
      ps.setInt(2, MIGRATION_WAIT_SECONDS);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || rs.getInt(1) != 1) {
          throw new SQLException(
              "another process held the migration lock of prefix "
                  + prefix
                  + " for "
                  + MIGRATION_WAIT_SECONDS
                  + " s",
              "HY000",
              LOCK_WAIT_TIMEOUT);
        }
      }
    }
  }

  @Override
  public void unlockMigrations(Connection c, String prefix) throws SQLException {
    // Commit before the lock goes: the last script's version row is not yet committed (only DDL
    // commits implicitly), and an instance taking the lock in between would read the version
    // before it, run that script again and fail on the row's key (seen: 8 instances opening a new
    // database at once, "Duplicate entry '12' for key 'PRIMARY'"). Whatever ran up to here is
    // committed already but for its version rows, which record scripts that did run.
    try (Statement s = c.createStatement()) {
      s.execute("COMMIT");
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT RELEASE_LOCK(?)")) {
      ps.setString(1, migrationLock(prefix));
      ps.executeQuery().close();
    }
  }

  /** A lock name of at most 64 characters, as {@code GET_LOCK} requires. */
  private static String migrationLock(String prefix) {
    String name = "onceonly.migrate." + prefix;
    return name.length() <= 64 ? name : "onceonly.migrate#" + Integer.toHexString(name.hashCode());
  }

  /** The binary log's format, {@code sql_mode}, character sets ({@link MariaDbSettings}). */
  @Override
  public long checkAtOpen(Connection c) throws SQLException {
    return MariaDbSettings.atOpen(c);
  }

  @Override
  public void checkSession(Connection c) throws SQLException {
    MariaDbSettings.session(c);
  }

  /**
   * Always true: {@code @@tx_isolation} reads the session's level, not the one {@code SET
   * TRANSACTION} gave the transaction under way, so a caller's transaction is taken as {@code
   * REPEATABLE READ} (the server's default) whatever it says; the library's own transactions run at
   * {@code READ COMMITTED} and are not asked.
   */
  @Override
  public String snapshotReads() {
    return "1";
  }

  /** A locking read, which InnoDB answers from the latest committed version of the row. */
  @Override
  public String shareLock() {
    return " LOCK IN SHARE MODE";
  }

  /**
   * Also 1020 (a row changed since the snapshot, with {@code innodb_snapshot_isolation}, 11.6+).
   */
  @Override
  public boolean snapshotTooOld(SQLException e) {
    return e.getErrorCode() == CHANGED_SINCE_SNAPSHOT || SqlDialect.super.snapshotTooOld(e);
  }

  /** {@code ER_CHECKREAD}: the record changed since the transaction's snapshot. */
  static final int CHANGED_SINCE_SNAPSHOT = 1020;

  @Override
  public InstantColumns instants() {
    return InstantColumns.UTC_DATETIME;
  }

  @Override
  public String instantType() {
    return "DATETIME(6)";
  }

  /** In the connection's current database, as the queries' table names are. */
  @Override
  public String tableExists() {
    return "SELECT COUNT(*) > 0 FROM information_schema.tables"
        + " WHERE table_schema = DATABASE() AND table_name = ?";
  }

  @Override
  public String columnExists() {
    return "SELECT COUNT(*) > 0 FROM information_schema.columns"
        + " WHERE table_schema = DATABASE() AND table_name = ? AND column_name = ?";
  }

  /** UTC, whatever the session's {@code time_zone}: no conversion through a local time. */
  @Override
  public Optional<String> serverClock() {
    return Optional.of(
        "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000");
  }

  @Override
  public Durability durability(Connection c) throws SQLException {
    return ServerDurability.mariadb(c);
  }

  @Override
  public boolean notifiesSends() {
    return false;
  }

  /**
   * {@code INSERT IGNORE}: MariaDB has no {@code ON CONFLICT}, and {@code ON DUPLICATE KEY UPDATE}
   * counts a row it left alone as affected when the driver asks for found rows (Connector/J's
   * default), so the caller could not tell a new row from an old one. {@code IGNORE} would also
   * turn a value too long for its column into a truncated one; the key columns it guards are wider
   * than any key the library accepts ({@link #maxKeyChars()}), and the other columns are {@code
   * TEXT}.
   */
  @Override
  public String insertOrNothing(String insert, String conflictColumns) {
    if (!insert.startsWith("INSERT INTO ")) {
      throw new IllegalArgumentException("not an INSERT INTO: " + insert);
    }
    return "INSERT IGNORE INTO " + insert.substring("INSERT INTO ".length());
  }

  /** A single-table {@code UPDATE} with its own {@code ORDER BY} and {@code LIMIT}. */
  @Override
  public String updateFirst(String table, String keys, String set, String where, String order) {
    return "UPDATE "
        + table
        + " SET "
        + set
        + " WHERE "
        + where
        + " ORDER BY "
        + order
        + " LIMIT ?";
  }

  @Override
  public int maxKeyChars() {
    return MAX_KEY_CHARS;
  }

  /**
   * The widest scope or key in characters: the key columns are {@code VARCHAR(255)} for a scope and
   * {@code VARCHAR(512)} for a key (InnoDB indexes at most 3,072 bytes, four per character).
   */
  static final int MAX_KEY_CHARS = 255;

  /**
   * The first step of a claim: lock the due rows nobody else has locked, in claim order, and return
   * their ids; {@link #claimed} leases them. MariaDB has no {@code UPDATE ... RETURNING} (only
   * {@code INSERT} and {@code DELETE} return rows), and an {@code UPDATE} cannot take its rows from
   * a subquery on its own table with a {@code LIMIT}. Under {@code READ COMMITTED} InnoDB takes no
   * gap locks, and {@code SKIP LOCKED} (10.6+) passes by the rows another claim holds, whether it
   * reaches them through the due index or the priority one.
   */
  @Override
  public String claim(String m, String pauses, boolean oldestFirst) {
    return "SELECT id FROM "
        + m
        + " WHERE queue = ? AND deliver_at <= ? AND "
        + SqlDialect.unpaused(pauses, m + ".queue")
        + " ORDER BY "
        + (oldestFirst ? "" : "priority DESC, ")
        + "deliver_at, id LIMIT ? FOR UPDATE SKIP LOCKED";
  }

  @Override
  public void bindClaim(PreparedStatement ps, String queue, long now, int max, long until)
      throws SQLException {
    ps.setString(1, queue);
    instants().set(ps, 2, now);
    ps.setInt(3, max);
  }

  /** The first step of a claim of chosen ids: lock those still due, waiting for their holders. */
  @Override
  public String claimIds(String m, int ids) {
    return "SELECT id FROM "
        + m
        + " WHERE id IN ("
        + String.join(", ", Collections.nCopies(ids, "?"))
        + ") AND deliver_at <= ? FOR UPDATE";
  }

  @Override
  public void bindClaimIds(PreparedStatement ps, int size, List<Long> ids, long now, long until)
      throws SQLException {
    for (int i = 0; i < size; i++) {
      ps.setLong(1 + i, ids.get(Math.min(i, ids.size() - 1)));
    }
    instants().set(ps, 1 + size, now);
  }

  /**
   * Leases the rows the locking {@code SELECT} returned, then reads them back: three statements in
   * the claim's transaction, which holds the rows' locks from the first to its end, so no other
   * claim sees them between the steps.
   */
  @Override
  public ResultSet claimed(Connection c, PreparedStatement claim, String m, long now, long until)
      throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (ResultSet rs = claim.executeQuery()) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    String in = ids.isEmpty() ? "NULL" : String.join(", ", Collections.nCopies(ids.size(), "?"));
    if (!ids.isEmpty()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE "
                  + m
                  + " SET deliver_at = ?, fence = fence + 1, attempts = attempts + 1, leased = 1,"
                  + " first_claimed_at = COALESCE(first_claimed_at, ?) WHERE id IN ("
                  + in
                  + ")")) {
        instants().set(ps, 1, until);
        instants().set(ps, 2, now);
        bindIds(ps, 3, ids);
        ps.executeUpdate();
      }
    }
    PreparedStatement ps =
        c.prepareStatement(
            "SELECT " + CLAIMED_COLUMNS + " FROM " + m + " WHERE id IN (" + in + ")");
    try {
      bindIds(ps, 1, ids);
      ResultSet rs = ps.executeQuery();
      ps.closeOnCompletion();
      return rs;
    } catch (SQLException | RuntimeException e) {
      ps.close();
      throw e;
    }
  }

  private static void bindIds(PreparedStatement ps, int first, List<Long> ids) throws SQLException {
    for (int i = 0; i < ids.size(); i++) {
      ps.setLong(first + i, ids.get(i));
    }
  }

  /**
   * {@code ON DUPLICATE KEY UPDATE c = VALUES(c)}: {@code VALUES(c)} is the value the row would
   * have been inserted with, for {@code INSERT ... SELECT} as for {@code INSERT ... VALUES}.
   */
  @Override
  public String upsert(String insert, String conflictColumns, List<String> updated) {
    return insert
        + " ON DUPLICATE KEY UPDATE "
        + updated.stream().map(u -> u + " = VALUES(" + u + ")").collect(Collectors.joining(", "));
  }

  /**
   * A single-table {@code DELETE} with its own {@code ORDER BY} and {@code LIMIT}: MariaDB refuses
   * a {@code LIMIT} in an {@code IN} subquery, and a subquery on the table a statement deletes
   * from.
   */
  @Override
  public String deleteFirst(String table, String keys, String where, String order) {
    return "DELETE FROM " + table + " WHERE " + where + " ORDER BY " + order + " LIMIT ?";
  }

  @Override
  public Optional<String> ackMany(String m) {
    return Optional.empty();
  }

  @Override
  public String decrementToZero(String expression) {
    return "GREATEST(" + expression + " - 1, 0)";
  }

  @Override
  public String distinct(String left, String right) {
    return "NOT (" + left + " <=> " + right + ")";
  }

  /** {@return {@code LOCATE}'s substring test; the column's binary collation makes it exact} */
  @Override
  public String contains(String column) {
    return "LOCATE(?, " + column + ") > 0";
  }
}
