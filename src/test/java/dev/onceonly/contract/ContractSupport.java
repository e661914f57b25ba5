package dev.onceonly.contract;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.cli.demo.Tickets;
import dev.onceonly.sql.Dialect;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.ContractDatabases;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.SqlTimes;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;

/**
 * What every contract suite needs from a database, and the helpers built on it.
 *
 * <p>Each suite is a {@code @ParameterizedClass} over some of {@link ContractDatabases}: the
 * database of one run ({@link #database}) makes this test's {@link ContractDatabase}, on which
 * {@link #open} makes new {@link OnceOnly} instances (the same database on every call within one
 * test) and {@link #connect} new JDBC connections. Everything the suites assert is read back
 * through a fresh connection, usually after {@link #reopen()}, so that nothing passes because a
 * value is still in memory.
 */
public abstract class ContractSupport {
  /** The fixed clock every suite starts from; tests move it explicitly. */
  protected final MutableClock clock = MutableClock.at("2030-01-15T10:00:00Z");

  /** The database this run of the suite is on, one of {@link ContractDatabases}. */
  @Parameter protected ContractDatabases.Factory database;

  /** Where a SQLite database of this test has its file. */
  @TempDir protected Path dir;

  private final List<OnceOnly> opened = new ArrayList<>();
  private ContractDatabase db;
  private Consumer<OnceOnlyBuilder> settings = b -> {};

  /** The store under test, set by {@link #start} and replaced by {@link #reopen()}. */
  protected OnceOnly once;

  /**
   * Opens a new {@link OnceOnly} on this test's database with {@code clock}, then applies {@code
   * customize} to the builder. Every call within one test reaches the same database.
   */
  protected OnceOnly open(MutableClock clock, Consumer<OnceOnlyBuilder> customize) {
    OnceOnlyBuilder builder = db().builder().clock(clock);
    customize.accept(builder);
    return builder.build();
  }

  private synchronized ContractDatabase db() {
    if (db == null) {
      db = database.create(dir);
    }
    return db;
  }

  /** {@return the dialect of this test's database}, known before any store is opened on it */
  protected Dialect dialect() {
    return db().dialect();
  }

  /** Opens a new JDBC connection to this test's database; the caller closes it. */
  protected Connection connect() throws SQLException {
    return db().connect();
  }

  /** Opens the store under test with default settings. */
  protected OnceOnly start() {
    return start(b -> {});
  }

  /** Opens the store under test; {@link #reopen()} will use the same settings. */
  protected OnceOnly start(Consumer<OnceOnlyBuilder> customize) {
    settings = customize;
    once = track(open(clock, customize));
    return once;
  }

  /** Closes the store under test and opens a new one on the same database, as a restart would. */
  protected void reopen() {
    once.close();
    once = track(open(clock, settings));
  }

  /** Registers an instance to be closed after the test. */
  protected OnceOnly track(OnceOnly instance) {
    synchronized (opened) {
      opened.add(instance);
    }
    return instance;
  }

  @AfterEach
  void closeEverything() throws Exception {
    synchronized (opened) {
      opened.forEach(OnceOnly::close);
    }
    if (db instanceof AutoCloseable pools) {
      pools.close(); // a PostgreSQL schema's connection pools, after the instances on them
    }
  }

  /** Returns an SQL expression for the timestamp {@code column} as epoch milliseconds. */
  protected String millis(String column) {
    return SqlTimes.millis(once.dialect(), column);
  }

  /** Returns an SQL literal for the instant {@code millis} in a timestamp column. */
  protected String timeLiteral(long millis) {
    return SqlTimes.literal(once.dialect(), millis);
  }

  /** Runs {@code SELECT COUNT(*) …} (or any one-number query) through a fresh connection. */
  protected long count(String sql) {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** Returns the first column of every row, through a fresh connection. */
  protected List<String> strings(String sql) {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** Executes statements through a fresh connection in auto-commit mode. */
  protected void exec(String... sql) {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      for (String each : sql) {
        s.execute(each);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(String.join("; ", sql), e);
    }
  }

  /** Returns the names of every table in the database, lowercase, sorted. */
  protected List<String> tables() {
    try (Connection c = connect()) {
      return tables(c);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot list tables", e);
    }
  }

  private static List<String> tables(Connection c) throws SQLException {
    // the catalog too: on MariaDB a database is a catalog, and null would mean all of them
    try (ResultSet rs =
        c.getMetaData().getTables(c.getCatalog(), c.getSchema(), "%", new String[] {"TABLE"})) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        String name = rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT);
        if (!name.startsWith("sqlite_")) {
          out.add(name);
        }
      }
      out.sort(null);
      return out;
    }
  }

  /**
   * Returns every row of every table, rendered as text, for comparing a whole database before and
   * after an operation that must write nothing. One fresh connection reads them all (a connection
   * per table cost a server's suites a third of a second per snapshot).
   */
  protected Map<String, List<String>> snapshot() {
    try (Connection c = connect()) {
      Map<String, List<String>> out = new TreeMap<>();
      for (String table : tables(c)) {
        out.put(table, rows(c, table));
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read every table", e);
    }
  }

  private static List<String> rows(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
      ResultSetMetaData meta = rs.getMetaData();
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          row.append(meta.getColumnName(i)).append('=').append(rs.getString(i)).append(';');
        }
        out.add(row.toString());
      }
      out.sort(null);
      return out;
    } catch (SQLException e) {
      throw new SQLException(table + ": " + e.getMessage(), e);
    }
  }

  /** Creates the ticket desk's {@code tickets} table, the business table of most effects here. */
  protected void createTickets() {
    try (Connection c = connect()) {
      createTickets(c);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create tickets", e);
    }
  }

  /** Creates the {@code tickets} table on {@code c}. */
  protected void createTickets(Connection c) throws SQLException {
    Tickets.createTable(c);
  }

  /**
   * Begins a write transaction on a caller's own connection, the way the database wants it: {@code
   * BEGIN IMMEDIATE} on SQLite, auto-commit off elsewhere.
   */
  protected void begin(Connection c) throws SQLException {
    if (once.dialect() == Dialect.SQLITE) {
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        s.execute("BEGIN IMMEDIATE");
      }
    } else {
      c.setAutoCommit(false);
    }
  }

  /** Commits a transaction started by {@link #begin}. */
  protected void commit(Connection c) throws SQLException {
    if (c.getAutoCommit()) {
      try (Statement s = c.createStatement()) {
        s.execute("COMMIT");
      }
    } else {
      c.commit();
    }
  }

  /** Rolls back a transaction started by {@link #begin}. */
  protected void rollback(Connection c) throws SQLException {
    if (c.getAutoCommit()) {
      try (Statement s = c.createStatement()) {
        s.execute("ROLLBACK");
      }
    } else {
      c.rollback();
    }
  }
}
