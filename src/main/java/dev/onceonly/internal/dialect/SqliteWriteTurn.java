package dev.onceonly.internal.dialect;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.sqlite.SQLiteConnection;

/**
 * The turn to write one SQLite file, taken in memory by the writers of this process.
 *
 * <p>SQLite admits one writer per file. A connection that finds the file's write lock taken sleeps
 * in SQLite's busy handler, 1, 2, 5, 10, then up to 100 ms at a time, and does not hear when the
 * lock is given back: with a handful of writers the lock lies idle most of the time while they
 * sleep. Writers of one process that take this turn first queue here instead, first come first
 * served, and the next one starts the moment the last one ends. The store's own write transactions
 * take it, and so do the application's transactions on a data source wrapped by {@code
 * SqliteWriteTurns}.
 *
 * <p>The turn is an optimisation only: SQLite's own lock still decides who writes. A writer that
 * cannot have the turn within its connection's busy timeout goes on without it and meets the file's
 * lock as before. A writer whose thread already holds the turn on another connection (a transaction
 * begun inside another one on the same file, such as Spring's {@code REQUIRES_NEW} inside a
 * {@code @Transactional} method) is refused at once with SQLState {@code 25000}: the outer
 * transaction holds the file's write lock and cannot end while its thread waits, so the inner one
 * could only wait out its busy timeout and fail. A turn whose holder's connection was closed
 * without handing it back is taken over at that point. Other processes on the same file are not in
 * the queue; they meet at the file's lock as before.
 */
public final class SqliteWriteTurn {
  /** The turns of the files opened so far, by real path; a turn nobody holds may be collected. */
  private static final Map<String, WeakReference<SqliteWriteTurn>> TURNS =
      new ConcurrentHashMap<>();

  /** Each physical connection's turn, found once per connection. */
  private static final Map<SQLiteConnection, SqliteWriteTurn> BY_CONNECTION = new WeakHashMap<>();

  /** The file's turn holder: which connection object, on which thread, over which connection. */
  private record Holder(Object key, Thread thread, SQLiteConnection physical) {}

  private final Semaphore permit = new Semaphore(1, true);
  private final AtomicReference<Holder> holder = new AtomicReference<>();

  /** The file's real path, for messages. */
  private final String file;

  private SqliteWriteTurn(String file) {
    this.file = file;
  }

  /**
   * Takes the turn of {@code c}'s file for {@code key} (the connection object the caller will end
   * the transaction on), waiting at most {@code c}'s busy timeout. Returns at once when {@code key}
   * holds it already, when {@code c} is not a SQLite file's connection, or when the turn could not
   * be had (the caller then goes on without it).
   *
   * @param key what the turn is held for, given again to {@link #leave}
   * @param c the connection, or a wrapper of it
   * @throws SQLException if this thread holds the turn on another connection (see the class)
   */
  public static void enter(Object key, Connection c) throws SQLException {
    enter(key, sqlite(c));
  }

  /**
   * {@link #enter(Object, Connection)} with the driver's connection already found.
   *
   * @param key what the turn is held for
   * @param physical the driver's connection, or {@code null} (nothing to do)
   * @throws SQLException if this thread holds the turn on another connection (see the class)
   */
  public static void enter(Object key, SQLiteConnection physical) throws SQLException {
    SqliteWriteTurn turn = physical == null ? null : of(physical);
    if (turn != null) {
      turn.take(key, physical);
    }
  }

  /**
   * Gives back the turn {@code key} holds on {@code c}'s file, if it holds it.
   *
   * @param key what the turn was taken for
   * @param c the connection, or a wrapper of it
   */
  public static void leave(Object key, Connection c) {
    leave(key, sqlite(c));
  }

  /**
   * {@link #leave(Object, Connection)} with the driver's connection already found (it may be
   * closed).
   *
   * @param key what the turn was taken for
   * @param physical the driver's connection, or {@code null} (nothing to do)
   */
  public static void leave(Object key, SQLiteConnection physical) {
    SqliteWriteTurn turn = physical == null ? null : turnOf(physical);
    if (turn != null) {
      turn.release(key);
    }
  }

  private void take(Object key, SQLiteConnection physical) throws SQLException {
    Holder now = holder.get();
    if (now != null && now.thread == Thread.currentThread()) {
      if (now.key == key || now.physical == physical || closed(now.physical)) {
        return; // held for this transaction already, or on this very connection: SQLite decides
      }
      throw new SQLException(
          "this thread already holds the write transaction of "
              + file
              + " on another connection, and SQLite admits one writer per file: a second"
              + " transaction begun inside the first (Spring's REQUIRES_NEW inside a"
              + " @Transactional method or a guarded request, or a second data source on the"
              + " same file) could only wait out its busy timeout and fail. Let the inner work"
              + " join the outer transaction (propagation REQUIRED), or run it after the outer"
              + " one commits",
          "25000");
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(physical.getBusyTimeout());
    try {
      while (!permit.tryAcquire(STALE_CHECK_MILLIS, TimeUnit.MILLISECONDS)) {
        Holder held = holder.get();
        if (held != null && closed(held.physical)) {
          handBack(held); // its connection was closed behind the wrapper: it never will
        } else if (System.nanoTime() - deadline >= 0) {
          return; // the holder is still at work past the busy timeout: SQLite's lock decides
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    holder.set(new Holder(key, Thread.currentThread(), physical));
  }

  /** How often a waiter looks whether the holder's connection is still open. */
  private static final long STALE_CHECK_MILLIS = 50;

  private void release(Object key) {
    Holder now = holder.get();
    if (now != null && now.key == key) {
      handBack(now);
    }
  }

  private boolean handBack(Holder h) {
    if (holder.compareAndSet(h, null)) {
      permit.release();
      return true;
    }
    return false;
  }

  private static boolean closed(SQLiteConnection c) {
    try {
      return c.isClosed();
    } catch (SQLException e) {
      return true;
    }
  }

  /**
   * The driver's connection behind {@code c}, or {@code null} when it is not SQLite's.
   *
   * @param c a connection or a wrapper of one
   * @return the SQLite connection, or {@code null}
   */
  public static SQLiteConnection sqlite(Connection c) {
    if (c instanceof SQLiteConnection s) {
      return s;
    }
    try {
      return c.isWrapperFor(SQLiteConnection.class) ? c.unwrap(SQLiteConnection.class) : null;
    } catch (SQLException e) {
      return null;
    }
  }

  private static SqliteWriteTurn turnOf(SQLiteConnection physical) {
    synchronized (BY_CONNECTION) {
      return BY_CONNECTION.get(physical);
    }
  }

  /** The turn of {@code physical}'s file; {@code null} for a database in memory. */
  private static SqliteWriteTurn of(SQLiteConnection physical) {
    SqliteWriteTurn known = turnOf(physical);
    if (known != null) {
      return known;
    }
    String file = file(physical);
    if (file == null) {
      return null;
    }
    SqliteWriteTurn turn;
    synchronized (TURNS) {
      WeakReference<SqliteWriteTurn> ref = TURNS.get(file);
      turn = ref == null ? null : ref.get();
      if (turn == null) {
        turn = new SqliteWriteTurn(file);
        TURNS.values().removeIf(r -> r.get() == null);
        TURNS.put(file, new WeakReference<>(turn));
      }
    }
    synchronized (BY_CONNECTION) {
      BY_CONNECTION.put(physical, turn);
    }
    return turn;
  }

  /** The real path of the connection's main database file, or {@code null} in memory. */
  private static String file(SQLiteConnection physical) {
    String name;
    try (Statement s = physical.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA database_list")) {
      name = null;
      while (rs.next()) {
        if ("main".equals(rs.getString("name"))) {
          name = rs.getString("file");
        }
      }
    } catch (SQLException e) {
      return null; // no turn: the writes meet at the file's lock as before
    }
    if (name == null || name.isEmpty()) {
      return null;
    }
    try {
      return Path.of(name).toRealPath().toString();
    } catch (IOException | RuntimeException e) {
      return name;
    }
  }
}
