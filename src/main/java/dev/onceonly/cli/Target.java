package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.OnceOnlyException;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.sql.SqliteUrls;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.function.Supplier;
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
          "a JDBC URL, e.g. jdbc:postgresql://host:5432/db?user=U&password=P or"
              + " jdbc:mariadb://host:3306/db?user=U&password=P (credentials as URL parameters,"
              + " masked in messages; onceonly-cli.jar carries the PostgreSQL, MariaDB and SQLite"
              + " drivers)")
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

  /** Returns where this command works, for messages (passwords removed). */
  String describe() {
    return db != null ? db.toString() : redact(jdbcUrl);
  }

  private void checkOne() {
    if ((db == null) == (jdbcUrl == null)) {
      throw new CliException(CliException.USAGE, "give exactly one of --db FILE or --jdbc-url URL");
    }
  }

  /**
   * Checks that the target can be reached before the store is opened on it. Unless {@code create},
   * a missing SQLite file is an error, not a new database; a JDBC URL needs a driver that accepts
   * it and a connection it opens (then closed: opening one is not reading the store).
   */
  private void checkReachable(boolean create) {
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
      return;
    }
    try {
      DriverManager.getDriver(jdbcUrl);
    } catch (SQLException e) {
      throw new CliException(
          CliException.UNREACHABLE,
          "no JDBC driver on the class path accepts "
              + redact(jdbcUrl)
              + " (for PostgreSQL, put org.postgresql:postgresql on the class path; for MariaDB,"
              + " org.mariadb.jdbc:mariadb-java-client)");
    }
    try {
      DriverManager.getConnection(jdbcUrl).close();
    } catch (SQLException e) {
      throw new CliException(
          CliException.UNREACHABLE,
          "cannot connect to " + redact(jdbcUrl) + ": " + firstLine(e.getMessage()));
    }
  }

  /**
   * Opens a JDBC connection of the caller's own, for the demo's application tables (the operator
   * commands read the store only through its API). Unless {@code create}, a missing SQLite file is
   * an error, not a new database.
   */
  Connection connect(boolean create) {
    checkReachable(create);
    try {
      if (db != null) {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(5_000);
        return config.createConnection(SqliteUrls.jdbcUrl(db)); // exactly that file
      }
      return DriverManager.getConnection(jdbcUrl);
    } catch (SQLException e) {
      throw new CliException(
          CliException.UNREACHABLE, "cannot open " + describe() + ": " + firstLine(e.getMessage()));
    }
  }

  /**
   * Opens the store to read, on an existing database whose schema is this tool's version. Opening
   * changes nothing ({@link OnceOnly.Migrations#NONE}); the version is read through {@link
   * Maintenance#schemaVersion()}: an operator command never creates or upgrades a database, and
   * works as a role that may only read and write rows. A SQLite file is opened read-only ({@link
   * SqliteFile#readOnly()}): its bytes, journal mode, modification time and neighbouring files stay
   * as they were, and a file that is not a SQLite database is refused before SQLite sees it.
   */
  OnceOnly open() {
    checkReachable(false); // a missing file, driver or server fails here, clearly
    OnceOnlyBuilder builder = OnceOnly.builder().migrations(OnceOnly.Migrations.NONE);
    if (db == null) {
      return checked(openStore(builder));
    }
    DataSource readOnly = existingFile().readOnly();
    builder.tablePrefix(prefix());
    return checked(build(() -> builder.dataSource(readOnly).build()));
  }

  /**
   * Opens the store to change rows (purge, requeue, resolve, schedule changes), on an existing
   * database whose schema is this tool's version. A file that is not a SQLite database (a 0-byte
   * file among them, which SQLite would take for a new one) is refused before anything is written,
   * and a file in rollback-journal mode stays in it.
   */
  OnceOnly openToWrite() {
    checkReachable(false);
    SqliteFile file = db == null ? null : existingFile();
    return checked(openStore(keepJournalMode(OnceOnly.builder(), file)));
  }

  /**
   * Reads the header of the existing {@code --db} file, refusing a 0-byte one (it holds no schema,
   * and SQLite would write its header into it) and one that is not a SQLite database.
   */
  private SqliteFile existingFile() {
    if (db.toFile().length() == 0) {
      throw noSchema();
    }
    return SqliteFile.inspect(db);
  }

  private CliException noSchema() {
    return new CliException(
        CliException.SCHEMA,
        "no OnceOnly schema with prefix "
            + prefix
            + " in "
            + describe()
            + " (run `onceonly migrate` to create it)");
  }

  /** Checks the schema of a store just opened, closing it if the check fails. */
  private OnceOnly checked(OnceOnly once) {
    try {
      checkSchema(once.maintenance().schemaVersion());
      return once;
    } catch (RuntimeException e) {
      once.close();
      throw e;
    }
  }

  /**
   * Opens the store for {@code migrate}: a missing SQLite file is created, and the schema may be
   * missing or older, but not newer than this tool's. An existing file keeps its journal mode; an
   * empty one becomes a store.
   */
  OnceOnly openForMigration() {
    checkReachable(true);
    boolean existing = db != null && Files.isRegularFile(db) && db.toFile().length() > 0;
    SqliteFile file = existing ? SqliteFile.inspect(db) : null;
    OnceOnly once = openStore(keepJournalMode(OnceOnly.builder(), file));
    try {
      checkNotNewer(once.maintenance().schemaVersion());
      return once;
    } catch (RuntimeException e) {
      once.close();
      throw e;
    }
  }

  /**
   * Returns the builder, without migrations, and set to keep an existing SQLite file in
   * rollback-journal mode if it is in it (the store would switch it to WAL otherwise, undoing a
   * choice made against WAL's shared memory; see docs/operations.md).
   *
   * @param file the existing file's header, or null for none
   */
  private static OnceOnlyBuilder keepJournalMode(OnceOnlyBuilder builder, SqliteFile file) {
    builder.migrations(OnceOnly.Migrations.NONE);
    if (file != null && file.rollbackJournal()) {
      builder.journalMode(OnceOnly.JournalMode.DELETE);
    }
    return builder;
  }

  /** Fails unless the schema is exactly the version this tool knows. */
  private void checkSchema(Maintenance.SchemaVersion version) {
    if (version.found() == 0) {
      throw noSchema();
    }
    checkNotNewer(version);
    if (version.found() < version.required()) {
      throw new CliException(
          CliException.SCHEMA,
          "the schema in "
              + describe()
              + " is version "
              + version.found()
              + ", older than this tool's "
              + version.required()
              + " (run `onceonly migrate`)");
    }
  }

  /** Fails if the database holds a schema newer than this tool knows. */
  private void checkNotNewer(Maintenance.SchemaVersion version) {
    if (version.found() > version.required()) {
      throw new CliException(
          CliException.SCHEMA,
          "the schema in "
              + describe()
              + " is version "
              + version.found()
              + ", newer than this tool's "
              + version.required()
              + "; use a newer OnceOnly");
    }
  }

  /**
   * Opens the store with the given builder; with {@link OnceOnly.Migrations#APPLY}, creating and
   * migrating the database if needed.
   */
  OnceOnly openStore(OnceOnlyBuilder builder) {
    checkOne();
    builder.tablePrefix(prefix());
    if (db != null) {
      return build(() -> builder.sqlite(db).build());
    }
    checkReachable(true); // fails early and clearly on a missing driver or a wrong URL
    try {
      return builder.dataSource(new UrlDataSource(jdbcUrl)).build();
    } catch (OnceOnlyException e) {
      throw new CliException(CliException.STORE, firstLine(e.getMessage()));
    }
  }

  /** Builds a store on {@code --db}, a failure to open it as one line. */
  private OnceOnly build(Supplier<OnceOnly> build) {
    try {
      return build.get();
    } catch (OnceOnlyException e) {
      throw new CliException(
          CliException.UNREACHABLE, "cannot open " + db + ": " + firstLine(e.getMessage()));
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
