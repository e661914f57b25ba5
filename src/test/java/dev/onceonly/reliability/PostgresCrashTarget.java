package dev.onceonly.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL schema reached through a JDBC URL ({@code currentSchema=} picks the schema; user and
 * password may ride in the URL), opened the way an application opens it: a HikariCP pool of its own
 * per process, the library's {@code dataSource} path.
 *
 * <p>The clock: given a data source and no clock, the library judges leases by the server's clock
 * ({@code internal/DatabaseClock}), which a child could not run ahead. The harness therefore hands
 * every process an explicit clock, {@code .clock(system + offset)}, as it does on SQLite; the
 * library binds every timestamp from that clock (none of its SQL reads the server's time), so
 * leases of killed children have run out for the next one without waiting, and the parent and the
 * children share one time base: this machine's clock.
 *
 * <p>Integrity, in place of SQLite's {@code PRAGMA integrity_check}, on every table of the schema:
 * with the {@code amcheck} extension (installed if missing and allowed), {@code verify_heapam}
 * reports no corrupt heap tuple and {@code bt_index_check(index, heapallindexed => true)} finds
 * every B-tree index well-formed and holding every heap tuple; without it, only what follows. Then,
 * reading the heap with index scans off, no unique or primary key holds a duplicate. A table that
 * cannot be read at all fails the check with its error.
 *
 * <p>Not thread-safe; one per process.
 */
final class PostgresCrashTarget implements CrashTarget {
  private static final int POOL_SIZE =
      5; // two worker threads, the producer, the reconciler, one spare

  private final String url;
  private final String timeZone;
  private HikariDataSource pool;
  private String integrityChecks; // what the last integrity check could use; null before one

  /**
   * A target on {@code url}.
   *
   * @param url a {@code jdbc:postgresql:} URL, with {@code currentSchema} for a schema of its own
   * @param timeZone the session time zone every connection sets, or null for the server's
   */
  PostgresCrashTarget(String url, String timeZone) {
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("url must start with jdbc:postgresql: " + url);
    }
    this.url = url;
    this.timeZone = timeZone;
  }

  @Override
  public String describe() {
    String where = "PostgreSQL " + url.replaceAll("password=[^&]*", "password=***");
    return integrityChecks == null ? where : where + " (" + integrityChecks + ")";
  }

  @Override
  public List<String> childArgs() {
    List<String> args = new ArrayList<>(List.of("target=postgresql", "url=" + url));
    if (timeZone != null) {
      args.add("timeZone=" + timeZone);
    }
    return args;
  }

  @Override
  public OnceOnly open(InstantSource clock) {
    return OnceOnly.builder().dataSource(pool()).clock(clock).build();
  }

  private HikariDataSource pool() {
    if (pool == null) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url);
      config.setMaximumPoolSize(POOL_SIZE);
      config.setMinimumIdle(0);
      if (timeZone != null) {
        config.setConnectionInitSql(setTimeZone());
      }
      config.setPoolName("crash-target");
      pool = new HikariDataSource(config);
    }
    return pool;
  }

  private String setTimeZone() {
    return "SET TIME ZONE '" + timeZone.replace("'", "''") + "'";
  }

  @Override
  public Connection connect() throws SQLException {
    Connection c = DriverManager.getConnection(url);
    if (timeZone != null) {
      try (Statement s = c.createStatement()) {
        s.execute(setTimeZone());
      } catch (SQLException e) {
        c.close();
        throw e;
      }
    }
    return c;
  }

  @Override
  public List<String> integrityProblems(Connection c) throws SQLException {
    List<String> problems = new ArrayList<>();
    String amcheck = amcheckSchema(c);
    integrityChecks =
        amcheck == null
            ? "integrity: unique keys by heap scan; amcheck not available"
            : "integrity: amcheck verify_heapam and bt_index_check(heapallindexed),"
                + " unique keys by heap scan";
    for (String table : strings(c, TABLES)) {
      if (amcheck != null) {
        heapProblems(c, amcheck, table, problems);
        for (String index : strings(c, BTREE_INDEXES, table)) {
          indexProblem(c, amcheck, index, problems);
        }
      }
      for (String columns : strings(c, UNIQUE_KEYS, table)) {
        duplicateProblems(c, table, columns, problems);
      }
    }
    return problems;
  }

  /** The schema of the {@code amcheck} extension, installing it if possible; null without it. */
  private static String amcheckSchema(Connection c) throws SQLException {
    String installed =
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace"
            + " WHERE e.extname = 'amcheck'";
    List<String> schema = strings(c, installed);
    if (schema.isEmpty()
        && !strings(c, "SELECT name FROM pg_available_extensions WHERE name = 'amcheck'")
            .isEmpty()) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE EXTENSION IF NOT EXISTS amcheck");
      } catch (SQLException e) {
        return null; // not allowed (amcheck needs a superuser): run without it
      }
      schema = strings(c, installed);
    }
    return schema.isEmpty() ? null : quote(c, schema.get(0));
  }

  private static final String IN_SCHEMA =
      " c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())";
  private static final String TABLES =
      "SELECT quote_ident(c.relname) FROM pg_class c WHERE c.relkind = 'r' AND"
          + IN_SCHEMA
          + " ORDER BY 1";
  private static final String BTREE_INDEXES =
      "SELECT quote_ident(ic.relname) FROM pg_index i"
          + " JOIN pg_class ic ON ic.oid = i.indexrelid"
          + " JOIN pg_class c ON c.oid = i.indrelid"
          + " JOIN pg_am am ON am.oid = ic.relam"
          + " WHERE am.amname = 'btree' AND quote_ident(c.relname) = ? AND"
          + IN_SCHEMA;

  /** The column list of each unique index on plain columns, without a predicate. */
  private static final String UNIQUE_KEYS =
      "SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.ord) FROM pg_index i"
          + " JOIN pg_class c ON c.oid = i.indrelid"
          + " CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)"
          + " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum"
          + " WHERE i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL"
          + " AND quote_ident(c.relname) = ? AND"
          + IN_SCHEMA
          + " GROUP BY i.indexrelid";

  private static void heapProblems(
      Connection c, String amcheck, String table, List<String> problems) {
    String sql =
        "SELECT blkno, offnum, attnum, msg FROM " + amcheck + ".verify_heapam(?::regclass)";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          problems.add(
              table
                  + ": block "
                  + rs.getLong(1)
                  + " offset "
                  + rs.getInt(2)
                  + " attribute "
                  + rs.getInt(3)
                  + ": "
                  + rs.getString(4));
        }
      }
    } catch (SQLException e) {
      problems.add(table + ": verify_heapam failed: " + e.getMessage());
    }
  }

  private static void indexProblem(
      Connection c, String amcheck, String index, List<String> problems) {
    String sql = "SELECT " + amcheck + ".bt_index_check(?::regclass, true)";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, index);
      ps.executeQuery().close();
    } catch (SQLException e) {
      problems.add(index + ": " + e.getMessage());
    }
  }

  /** Reads the heap, not the index under suspicion, for rows sharing a unique key. */
  private static void duplicateProblems(
      Connection c, String table, String columns, List<String> problems) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.execute("SET LOCAL enable_indexscan = off");
      s.execute("SET LOCAL enable_indexonlyscan = off");
      s.execute("SET LOCAL enable_bitmapscan = off");
      String sql =
          "SELECT CAST(("
              + columns
              + ") AS TEXT) FROM "
              + table
              + " WHERE ("
              + columns
              + ") IS NOT NULL GROUP BY "
              + columns
              + " HAVING COUNT(*) > 1";
      try (ResultSet rs = s.executeQuery(sql)) {
        while (rs.next()) {
          problems.add(table + ": duplicate key (" + columns + ") = " + rs.getString(1));
        }
      }
    } catch (SQLException e) {
      problems.add(table + ": cannot be read: " + e.getMessage());
    } finally {
      c.rollback();
      c.setAutoCommit(autoCommit);
    }
  }

  private static String quote(Connection c, String identifier) throws SQLException {
    return strings(c, "SELECT quote_ident(?)", identifier).get(0);
  }

  private static List<String> strings(Connection c, String sql, String... args)
      throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setString(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.close();
      pool = null;
    }
  }
}
