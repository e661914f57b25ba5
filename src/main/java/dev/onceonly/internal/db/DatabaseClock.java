package dev.onceonly.internal.db;

import dev.onceonly.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The PostgreSQL server's clock, as seen from this process: the local clock plus an offset measured
 * against {@code clock_timestamp()} when opened and again every {@value #REFRESH_SECONDS} seconds.
 *
 * <p>Why: leases, visibility times and retention are compared across every instance that shares the
 * database. Instances on machines whose clocks disagree would otherwise grant each other's leases
 * early (or late). With one time base, the error between instances is bounded by half a round trip
 * plus the local drift over one refresh period, instead of by the worst pair of machine clocks. The
 * offset is read in a background thread on a connection of its own, never inside a caller's
 * transaction, so a clock read costs no round trip and cannot wait for the pool. If a refresh fails
 * the last offset stays in use.
 */
public final class DatabaseClock implements InstantSource, AutoCloseable {
  static final int REFRESH_SECONDS = 10;
  private static final System.Logger LOG = System.getLogger(DatabaseClock.class.getName());

  private final DataSource dataSource;
  private final String query;
  private final ScheduledExecutorService refresher;
  private volatile long offsetMillis;
  private boolean failing; // on the refresher's thread only

  private DatabaseClock(DataSource dataSource, String query) {
    this.dataSource = dataSource;
    this.query = query;
    this.refresher =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "onceonly-database-clock");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Measures the offset once and starts refreshing it, reading the server's clock with {@code
   * query} (the dialect's {@code serverClock()}: one row, epoch milliseconds).
   *
   * @throws StoreException if the first measurement fails
   */
  public static DatabaseClock start(DataSource dataSource, String query) {
    return start(dataSource, query, TimeUnit.SECONDS.toMillis(REFRESH_SECONDS));
  }

  /** Starts as {@link #start(DataSource, String)} does, refreshing every {@code refreshMillis}. */
  static DatabaseClock start(DataSource dataSource, String query, long refreshMillis) {
    DatabaseClock clock = new DatabaseClock(dataSource, query);
    try {
      clock.offsetMillis = clock.measure();
    } catch (SQLException e) {
      clock.close();
      throw new StoreException("cannot read the database clock", "postgresql", e);
    }
    clock.refresher.scheduleWithFixedDelay(
        clock::refresh, refreshMillis, refreshMillis, TimeUnit.MILLISECONDS);
    return clock;
  }

  private void refresh() {
    try {
      offsetMillis = measure();
      if (failing) {
        failing = false;
        LOG.log(System.Logger.Level.INFO, "reading the database clock again");
      }
    } catch (SQLException | RuntimeException e) {
      // Keep the last offset: a database that cannot be reached fails the next operation anyway.
      // Said once per run of failures: the offset in use grows stale from here.
      if (!failing) {
        failing = true;
        LOG.log(
            System.Logger.Level.WARNING,
            "cannot read the database clock; the last offset stays in use until it can",
            e);
      }
    }
  }

  private long measure() throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(query)) {
      long before = System.currentTimeMillis();
      try (ResultSet rs = ps.executeQuery()) {
        long after = System.currentTimeMillis();
        rs.next();
        return rs.getLong(1) - (before + after) / 2;
      }
    }
  }

  /** Returns the current offset of the server's clock from this machine's, in milliseconds. */
  public long offsetMillis() {
    return offsetMillis;
  }

  @Override
  public long millis() {
    return System.currentTimeMillis() + offsetMillis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  /** Stops refreshing. */
  @Override
  public void close() {
    refresher.shutdownNow();
  }
}
