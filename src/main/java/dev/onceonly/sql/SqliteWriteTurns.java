package dev.onceonly.sql;

import dev.onceonly.internal.db.TurnTakingDataSource;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Lets the application's own SQLite transactions queue in memory with the store's, instead of
 * sleeping in SQLite's busy handler.
 *
 * <p>SQLite admits one writer per file. When the application writes its business rows through its
 * own pool while OnceOnly writes receipts and jobs to the same file, each writer that finds the
 * file's lock taken sleeps in SQLite's busy handler (1, 2, 5, 10 and up to 100 ms at a time) and is
 * not woken when the lock is free, so the lock lies idle while writers sleep. A wrapped data source
 * hands out connections whose transactions first take the file's turn in this process, first come
 * first served, as the store's own transactions do; the next writer starts as soon as the last one
 * ends.
 *
 * <pre>{@code
 * DataSource app = SqliteWriteTurns.wrap(pool); // pool: the application's HikariCP pool
 * OnceOnly once = OnceOnly.builder().sqlite(file).build();
 * }</pre>
 *
 * <p>A transaction holds the turn from {@code setAutoCommit(false)} until auto-commit is turned on
 * again or the connection is closed (sqlite-jdbc begins the next transaction at each commit, so the
 * connection still holds the file's lock until then). Statements run in auto-commit mode do not
 * take it, and neither do connections in deferred mode (their {@code BEGIN} takes no lock). The
 * turn only orders writers: SQLite's lock still decides, so a writer that waits longer than its
 * connection's busy timeout goes on without the turn and meets the lock as before, and other
 * processes on the file are not in the queue. A {@code BEGIN} that fails busy leaves the
 * connection's auto-commit on, so that the pool hands it out ready for a real {@code BEGIN}
 * (sqlite-jdbc alone leaves it saying off with no transaction open). Spring Boot's
 * auto-configuration wraps a HikariCP pool on a SQLite URL already ({@code
 * SqlitePooledDataSource}).
 */
public final class SqliteWriteTurns {
  private SqliteWriteTurns() {}

  /**
   * Wraps a data source of SQLite connections (any other connection passes through unchanged).
   *
   * @param pool the application's data source, usually a pool
   * @return a data source whose transactions take the file's turn
   */
  public static DataSource wrap(DataSource pool) {
    return new TurnTakingDataSource(Objects.requireNonNull(pool, "pool"));
  }
}
