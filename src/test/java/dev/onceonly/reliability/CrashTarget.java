package dev.onceonly.reliability;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.ChildArgs;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * The store a crash run works on, as the parent and its child processes both reach it: the seam
 * where another dialect plugs in. A target names itself in {@code name=value} arguments for the
 * child ({@link #childArgs()}), and {@link #fromArgs} turns them back into the same target.
 *
 * <p>Add a dialect by adding an implementation and a case to {@link #fromArgs}; the harness only
 * uses portable SQL on the library's tables and its own {@code crash_effects} table.
 */
public interface CrashTarget extends AutoCloseable {
  /** Returns a short description for reports. */
  String describe();

  /** Returns the arguments that make {@link #fromArgs} rebuild this target in a child. */
  List<String> childArgs();

  /** Opens the library on the target with {@code clock}. */
  OnceOnly open(InstantSource clock);

  /** Opens a fresh connection for checks and for the workload's own table. */
  Connection connect() throws SQLException;

  /**
   * Returns the problems the database reports about its own storage after a crash; empty when
   * sound.
   */
  List<String> integrityProblems(Connection c) throws SQLException;

  /** Releases what the target holds (a connection pool); the store itself stays. */
  @Override
  default void close() {}

  /**
   * Rebuilds a target from a child's arguments: {@code target=sqlite file=...} or {@code
   * target=postgresql url=...}; without {@code target}, a {@code url} means PostgreSQL.
   */
  static CrashTarget fromArgs(ChildArgs args) {
    String kind = args.get("target", args.get("url", null) != null ? "postgresql" : "sqlite");
    if (kind.equals("sqlite")) {
      return new Sqlite(
          Path.of(args.required("file")),
          OnceOnly.Synchronous.valueOf(args.get("synchronous", "FULL")));
    }
    if (kind.equals("postgresql")) {
      return new PostgresCrashTarget(args.required("url"), args.get("timeZone", null));
    }
    throw new IllegalArgumentException("unknown target=" + kind);
  }

  /**
   * A SQLite file opened by the library itself, with its default settings but {@code synchronous}.
   * A process crash must lose nothing under {@code NORMAL} either; power loss is another matter.
   */
  record Sqlite(Path file, OnceOnly.Synchronous synchronous) implements CrashTarget {
    /** The file with the default {@code synchronous=FULL}. */
    public Sqlite(Path file) {
      this(file, OnceOnly.Synchronous.FULL);
    }

    @Override
    public String describe() {
      return "SQLite " + file + " (synchronous=" + synchronous + ")";
    }

    @Override
    public List<String> childArgs() {
      return List.of(
          "target=sqlite", "file=" + file.toAbsolutePath(), "synchronous=" + synchronous);
    }

    @Override
    public OnceOnly open(InstantSource clock) {
      return OnceOnly.builder().sqlite(file).synchronous(synchronous).clock(clock).build();
    }

    @Override
    public Connection connect() throws SQLException {
      Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
      try (Statement s = c.createStatement()) {
        s.execute("PRAGMA busy_timeout = 30000");
      }
      return c;
    }

    @Override
    public List<String> integrityProblems(Connection c) throws SQLException {
      List<String> problems = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
        while (rs.next()) {
          if (!"ok".equals(rs.getString(1))) {
            problems.add(rs.getString(1));
          }
        }
      }
      return problems;
    }
  }
}
