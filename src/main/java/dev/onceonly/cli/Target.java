package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyException;
import dev.onceonly.internal.db.Migrator;
import dev.onceonly.internal.db.SqliteUrls;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.OptionalInt;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import picocli.CommandLine.Option;

/**
 * Where a command works: a SQLite file ({@code --db}) or any JDBC URL ({@code --jdbc-url}), and the
 * table prefix. Opens connections and the store, and checks the schema version first so that an
 * operator command never creates or upgrades a database by accident.
 */
final class Target {
  private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,30}");
  private static final Pattern SECRET =
      Pattern.compile("(?i)(password|pwd|secret)=[^&;]*|//[^/@]*@");

  @Option(
      names = "--db",
      paramLabel = "FILE",
      description = "the SQLite database file (must exist, except for migrate and demo)")
  Path db;

  @Option(
      names = "--jdbc-url",
      paramLabel = "URL",
      description =
          "a JDBC URL, e.g. jdbc:postgresql://host:5432/db?user=U&password=P (credentials as URL"
              + " parameters, masked in messages; onceonly-cli.jar carries the PostgreSQL and"
              + " SQLite drivers)")
  String jdbcUrl;

  @Option(
      names = "--prefix",
      paramLabel = "PREFIX",
      defaultValue = "onceonly_",
      description = "the table prefix (default: ${DEFAULT-VALUE})")
  String prefix;

  /** Returns the validated prefix, safe to put in SQL. */
  String prefix() {
    if (!PREFIX.matcher(prefix).matches()) {
      throw new CliException(
          CliException.USAGE,
          "--prefix must be 1 to 31 of a-z 0-9 _, starting with a letter: " + prefix);
    }
    return prefix;
  }

  /** Returns a table's full name. */
  String table(String name) {
    return prefix() + name;
  }

  /** Returns where this command works, for messages (passwords removed). */
  String describe() {
    return db != null ? db.toString() : redact(jdbcUrl);
  }

  /** Whether timestamps are SQLite's epoch millis rather than {@code timestamptz}. */
  boolean isSqlite() {
    return db != null || jdbcUrl.startsWith("jdbc:sqlite:");
  }

  private void checkOne() {
    if ((db == null) == (jdbcUrl == null)) {
      throw new CliException(CliException.USAGE, "give exactly one of --db FILE or --jdbc-url URL");
    }
  }

  /**
   * Opens a connection. Unless {@code create}, a missing SQLite file is an error, not a new
   * database.
   */
  Connection connect(boolean create) {
    checkOne();
    prefix();
    if (db != null) {
      if (!create && !Files.isRegularFile(db)) {
        throw new CliException(
            CliException.NOT_FOUND,
            "no database file at "
                + db
                + " (run `onceonly migrate --db "
                + db
                + "` to create one)");
      }
      try {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(5_000);
        return SqliteUrls.open(config, db);
      } catch (SQLException e) {
        throw new CliException(
            CliException.UNREACHABLE, "cannot open " + db + ": " + firstLine(e.getMessage()));
      }
    }
    try {
      DriverManager.getDriver(jdbcUrl);
    } catch (SQLException e) {
      throw new CliException(
          CliException.UNREACHABLE,
          "no JDBC driver on the class path accepts "
              + redact(jdbcUrl)
              + " (for PostgreSQL, put org.postgresql:postgresql on the class path)");
    }
    try {
      return DriverManager.getConnection(jdbcUrl);
    } catch (SQLException e) {
      throw new CliException(
          CliException.UNREACHABLE,
          "cannot connect to " + redact(jdbcUrl) + ": " + firstLine(e.getMessage()));
    }
  }

  /**
   * Returns the schema version recorded in the database, or empty if it has no OnceOnly schema
   * under this prefix.
   */
  OptionalInt schemaVersion(Connection c) {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT MAX(version) FROM " + table("schema_version"))) {
      rs.next();
      int v = rs.getInt(1);
      return rs.wasNull() ? OptionalInt.empty() : OptionalInt.of(v);
    } catch (SQLException e) {
      return OptionalInt.empty(); // no such table: no schema under this prefix
    }
  }

  /** Fails unless the schema is exactly the version this tool knows. */
  void checkSchema(Connection c) {
    int latest = Migrator.latestVersion();
    OptionalInt found = schemaVersion(c);
    if (found.isEmpty()) {
      throw new CliException(
          CliException.SCHEMA,
          "no OnceOnly schema with prefix "
              + prefix
              + " in "
              + describe()
              + " (run `onceonly migrate` to create it)");
    }
    checkNotNewer(found.getAsInt());
    if (found.getAsInt() < latest) {
      throw new CliException(
          CliException.SCHEMA,
          "the schema in "
              + describe()
              + " is version "
              + found.getAsInt()
              + ", older than this tool's "
              + latest
              + " (run `onceonly migrate`)");
    }
  }

  /** Fails if the database holds a schema newer than this tool knows. */
  void checkNotNewer(int found) {
    int latest = Migrator.latestVersion();
    if (found > latest) {
      throw new CliException(
          CliException.SCHEMA,
          "the schema in "
              + describe()
              + " is version "
              + found
              + ", newer than this tool's "
              + latest
              + "; use a newer OnceOnly");
    }
  }

  /** Opens a connection to an existing database whose schema is this tool's version. */
  Connection connectChecked() {
    Connection c = connect(false);
    try {
      checkSchema(c);
      return c;
    } catch (RuntimeException e) {
      close(c);
      throw e;
    }
  }

  /**
   * Opens the store on an existing, checked database, with migrations off: an operator command
   * never changes the schema, and works as a role that may only read and write rows.
   */
  OnceOnly open() {
    close(connectChecked());
    return openStore(OnceOnly.builder().migrations(OnceOnly.Migrations.VALIDATE));
  }

  /** Opens the store with the given builder, creating and migrating the database if needed. */
  OnceOnly openStore(OnceOnly.Builder builder) {
    checkOne();
    builder.tablePrefix(prefix());
    try {
      if (db != null) {
        return builder.sqlite(db).build();
      }
      close(connect(true)); // fails early and clearly on a missing driver or a wrong URL
      return builder.dataSource(new UrlDataSource(jdbcUrl)).build();
    } catch (OnceOnlyException e) {
      throw new CliException(CliException.STORE, firstLine(e.getMessage()));
    }
  }

  /** Reads a timestamp column: epoch millis on SQLite, {@code timestamptz} elsewhere. */
  Instant instant(ResultSet rs, String column) throws SQLException {
    if (isSqlite()) {
      long millis = rs.getLong(column);
      return rs.wasNull() ? null : Instant.ofEpochMilli(millis);
    }
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  /** Binds a timestamp parameter the way {@link #instant} reads it. */
  void bind(PreparedStatement ps, int index, Instant at) throws SQLException {
    if (isSqlite()) {
      ps.setLong(index, at.toEpochMilli());
    } else {
      ps.setObject(index, OffsetDateTime.ofInstant(at, java.time.ZoneOffset.UTC));
    }
  }

  static String redact(String url) {
    return url == null
        ? null
        : SECRET
            .matcher(url)
            .replaceAll(m -> m.group().startsWith("//") ? "//***@" : m.group(1) + "=***");
  }

  static String firstLine(String message) {
    if (message == null) {
      return "unknown error";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).strip();
  }

  /** Closes a connection; a failure to close is not worth failing a command for. */
  private static void close(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      // nothing was written through it; the command's own result is what matters
    }
  }

  /** A data source over {@link DriverManager}, one new connection per call. */
  private record UrlDataSource(String url) implements DataSource {
    @Override
    public Connection getConnection() throws SQLException {
      return DriverManager.getConnection(url);
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return DriverManager.getConnection(url, user, password);
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() {
      return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return false;
    }
  }
}
