package dev.onceonly.internal.db;

import dev.onceonly.SchemaVersionException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Applies the schema migrations shipped under {@code dev/onceonly/sql/<dialect>/} in order,
 * recording each in {@code <prefix>schema_version}. Never destructive: scripts create tables and
 * indexes and never touch rows (V4 replaces an index by a narrower one).
 *
 * <p>Safe when several processes open the same database at once: the check and the scripts run in
 * one write transaction ({@code BEGIN IMMEDIATE} on SQLite; on PostgreSQL, DDL is transactional and
 * a transaction-scoped advisory lock on the prefix is taken first), so the second process waits,
 * then sees the version the first one recorded.
 */
public final class Migrator {
  /**
   * The migrations this library ships, in ascending order; each one's version is the number its
   * name starts with ({@code V<n>__}), so a version another branch of the schema holds may be
   * missing from the list (the numbers need not be contiguous, only increasing).
   */
  static final List<String> SCRIPTS =
      List.of(
          "V1__receipt_core.sql",
          "V2__job_queue.sql",
          "V3__external_effects.sql",
          "V4__live_receipts_index.sql",
          "V5__schedules.sql",
          "V6__priorities.sql",
          "V7__unique_keys.sql",
          "V8__message_traceparent.sql",
          "V9__leased.sql",
          "V10__partitions.sql",
          "V11__trace_context.sql",
          "V12__overview_indexes.sql",
          "V13__workflows.sql",
          "V14__workflow_trace.sql",
          "V15__status_probes.sql",
          "V16__rate_limits.sql",
          "V17__queue_pauses.sql",
          "V18__attempt_errors.sql");

  private static final java.util.regex.Pattern VERSIONED =
      java.util.regex.Pattern.compile("V([1-9][0-9]*)__[a-z0-9_]+\\.sql");

  /** The version a script's name gives. */
  static int version(String script) {
    java.util.regex.Matcher m = VERSIONED.matcher(script);
    if (!m.matches()) {
      throw new IllegalStateException("migration " + script + " is not named V<n>__<name>.sql");
    }
    return Integer.parseInt(m.group(1));
  }

  private final Database database;
  private final String prefix;
  private final InstantSource clock;

  /**
   * Creates the migrator.
   *
   * @param database where to migrate
   * @param prefix the validated table prefix
   * @param clock the clock for {@code applied_at}
   */
  public Migrator(Database database, String prefix, InstantSource clock) {
    this.database = database;
    this.prefix = prefix;
    this.clock = clock;
  }

  /** Returns the newest schema version this library knows. */
  public static int latestVersion() {
    return version(SCRIPTS.get(SCRIPTS.size() - 1));
  }

  /** The first script whose version is at least {@code version}. */
  private static String scriptFrom(int version) {
    return SCRIPTS.stream().filter(s -> version(s) >= version).findFirst().orElseThrow();
  }

  /**
   * Brings the schema to {@link #latestVersion()}. Runs in a write transaction even when there is
   * nothing to do, so that an unwritable SQLite file is refused at open; but a schema already
   * current is only read, so a PostgreSQL role without the right to create tables can open a
   * database its owner migrated.
   *
   * @return the version found before migrating (0 for an empty database)
   * @throws SchemaVersionException if the database holds a newer schema than this library knows
   */
  public int migrate() {
    return migrate(version -> {});
  }

  /**
   * Brings the schema to {@link #latestVersion()} like {@link #migrate()}, telling {@code applied}
   * each version as its script has run (inside the transaction, which may still roll back).
   *
   * @param applied called with each version applied
   * @return the version found before migrating (0 for an empty database)
   * @throws SchemaVersionException if the database holds a newer schema than this library knows
   */
  public int migrate(IntConsumer applied) {
    return database.write(c -> migrate(c, applied));
  }

  /**
   * Reads the recorded version without creating or changing anything.
   *
   * @return the version, 0 when there is no schema under the prefix
   */
  public int recordedVersion() {
    return database.read(this::recordedVersion);
  }

  /**
   * Checks, without writing or creating anything, that the schema is {@link #latestVersion()}.
   *
   * @throws SchemaVersionException if the schema is missing, older or newer
   */
  public void validate() {
    int found = database.read(this::recordedVersion);
    if (found > latestVersion()) {
      throw newer(found);
    }
    if (found == 0) {
      throw new SchemaVersionException(
          "no OnceOnly schema with prefix "
              + prefix
              + " (no table "
              + prefix
              + "schema_version) and migrations are off; "
              + howToMigrate(1),
          database.dialect().id(),
          0,
          latestVersion());
    }
    if (found < latestVersion()) {
      throw new SchemaVersionException(
          "the database schema is version "
              + found
              + ", older than this library's "
              + latestVersion()
              + ", and migrations are off; "
              + howToMigrate(found + 1),
          database.dialect().id(),
          found,
          latestVersion());
    }
  }

  private String howToMigrate(int from) {
    String scripts =
        version(scriptFrom(from)) == latestVersion()
            ? scriptFrom(from)
            : scriptFrom(from) + " to " + SCRIPTS.get(SCRIPTS.size() - 1);
    return "apply "
        + scripts
        + " from dev/onceonly/sql/"
        + database.dialect().id()
        + "/ (Flyway or Liquibase, placeholder ${prefix} = "
        + prefix
        + "), run `onceonly migrate`, or open once with Migrations.APPLY as a user allowed to"
        + " create tables";
  }

  private SchemaVersionException newer(int found) {
    return new SchemaVersionException(
        "the database schema is version "
            + found
            + ", newer than this library's "
            + latestVersion()
            + "; upgrade OnceOnly",
        database.dialect().id(),
        found,
        latestVersion());
  }

  private int migrate(Connection c, IntConsumer applied) throws SQLException {
    // PostgreSQL: instances starting at once queue here until the first one commits (its CREATE
    // TABLE IF NOT EXISTS would otherwise race on the catalog). The lock is transaction-scoped, so
    // it holds no session state and works through PgBouncer's transaction pooling. MariaDB commits
    // at each DDL statement, which would release such a lock: there it is the session's until
    // unlockMigrations, and the scripts are written to run again after a cut half-way.
    database.sql().lockMigrations(c, prefix);
    try {
      return migrateLocked(c, applied);
    } finally {
      database.sql().unlockMigrations(c, prefix);
    }
  }

  private int migrateLocked(Connection c, IntConsumer applied) throws SQLException {
    int recorded = recordedVersion(c);
    if (recorded == latestVersion()) {
      return recorded; // no DDL: PostgreSQL checks the CREATE right even for IF NOT EXISTS
    }
    if (recorded > latestVersion()) {
      throw newer(recorded);
    }
    execute(
        c,
        "CREATE TABLE IF NOT EXISTS "
            + prefix
            + "schema_version (version INTEGER NOT NULL PRIMARY KEY,"
            + " description TEXT NOT NULL, applied_at "
            + database.sql().instantType()
            + " NOT NULL)");
    int found = currentVersion(c);
    if (found > latestVersion()) {
      throw newer(found);
    }
    for (String script : SCRIPTS) {
      int v = version(script);
      if (v <= found) {
        continue;
      }
      for (String statement : statements(script)) {
        if (!addsExistingColumn(c, statement)) {
          execute(c, statement);
        }
      }
      record(c, v, script);
      applied.accept(v);
    }
    return found;
  }

  /**
   * Returns the recorded version, 0 when the version table is missing, without creating anything (a
   * missing table found by a failing query would abort a PostgreSQL transaction).
   */
  private int recordedVersion(Connection c) throws SQLException {
    String table = prefix + "schema_version";
    try (PreparedStatement ps = c.prepareStatement(database.sql().tableExists())) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || !rs.getBoolean(1)) {
          return 0;
        }
      }
    }
    return currentVersion(c);
  }

  private int currentVersion(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT MAX(version) FROM " + prefix + "schema_version")) {
      return rs.next() ? rs.getInt(1) : 0;
    }
  }

  private void record(Connection c, int version, String script) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + prefix
                + "schema_version (version, description, applied_at) VALUES (?, ?, ?)")) {
      ps.setInt(1, version);
      ps.setString(2, script);
      database.times().set(ps, 3, clock.millis());
      ps.executeUpdate();
    }
  }

  private static final java.util.regex.Pattern ADD_COLUMN =
      java.util.regex.Pattern.compile(
          "(?is)ALTER\\s+TABLE\\s+(\\S+)\\s+ADD\\s+COLUMN\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(\\S+)\\s.*");

  /**
   * Whether {@code statement} adds a column that is there already: a script run again after its
   * version row was lost (or by an older tool's half-finished run on a database without
   * transactional DDL) then changes nothing, as its {@code CREATE ... IF NOT EXISTS} statements do.
   * SQLite has no {@code ADD COLUMN IF NOT EXISTS}.
   */
  private boolean addsExistingColumn(Connection c, String statement) throws SQLException {
    java.util.regex.Matcher m = ADD_COLUMN.matcher(statement.strip());
    if (!m.matches()) {
      return false;
    }
    try (PreparedStatement ps = c.prepareStatement(database.sql().columnExists())) {
      ps.setString(1, m.group(1));
      ps.setString(2, m.group(2));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** Reads a script, substitutes the prefix and splits it into statements. */
  List<String> statements(String script) {
    String text = resource(database.dialect().id() + "/" + script).replace("${prefix}", prefix);
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : text.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("--")) {
        continue;
      }
      current.append(line).append('\n');
      if (trimmed.endsWith(";")) {
        out.add(current.toString().strip().replaceAll(";$", ""));
        current.setLength(0);
      }
    }
    return out;
  }

  private static String resource(String path) {
    try (InputStream in = Migrator.class.getResourceAsStream("/dev/onceonly/sql/" + path)) {
      if (in == null) {
        throw new IllegalStateException("missing migration resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
