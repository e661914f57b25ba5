package dev.onceonly.internal.db;

import dev.onceonly.StoreException;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One write connection shared by every thread of this process, with group commit.
 *
 * <p>SQLite admits one writer per file, and threads that fight for it with {@code busy_timeout}
 * sleeps collapse throughput. Here threads of one process queue in memory instead, and whichever
 * thread finds the connection free becomes the leader: it takes every step waiting at that moment
 * (up to {@code maxBatch}), begins one {@code BEGIN IMMEDIATE} transaction (and if it had to wait
 * for the file, takes the steps that queued meanwhile too), runs them in it, each under its own
 * savepoint so that one failing step rolls back alone, commits once, and then answers every caller.
 * A lone caller runs its own step at once, with no savepoint, no hand-off and no wait, even with
 * {@code maxWait} set: a leader waits (parked) for more steps only while others are queued and
 * still arriving, and never longer than {@code maxWait}. Nothing is answered before its commit.
 * Other processes on the same file still meet at the file lock, once per batch.
 *
 * <p>Consequence for effects: under contention a step may run on another caller's thread, so an
 * effect must use only the connection it is given, not thread-local state.
 *
 * <p>Reads use up to four connections of their own (WAL lets them run beside the writer). A read
 * connection that fails is closed, and so is the write connection after a failure that says it
 * could not write its file; any connection found closed is reopened on next use.
 */
public final class SingleConnectionDatabase extends Database {
  /** Opens a new connection, configured for use. */
  @FunctionalInterface
  public interface Opener {
    /** Returns a new open connection. */
    Connection open() throws SQLException;
  }

  private final ReentrantLock writeLock = new ReentrantLock();
  private static final int MAX_READERS = 4;

  private final ConcurrentLinkedQueue<Connection> idleReaders = new ConcurrentLinkedQueue<>();
  private final java.util.concurrent.Semaphore readerPermits =
      new java.util.concurrent.Semaphore(MAX_READERS);
  private final ConcurrentLinkedQueue<Step<?>> waiting = new ConcurrentLinkedQueue<>();
  private final Opener opener;
  private final boolean owned;
  private final int maxBatch;
  private final long maxWaitNanos;
  private Connection writer;
  private volatile boolean closed;

  /**
   * Creates the database.
   *
   * @param dialect the dialect
   * @param opener opens connections (again after a failure)
   * @param owned whether this object opened the connection and so closes it; a caller's single
   *     connection is used for reads and writes alike
   * @param maxBatch the most steps in one transaction; 1 turns group commit off
   * @param maxWait how long a leader waits for more steps when its batch is not full
   */
  public SingleConnectionDatabase(
      Dialect dialect, Opener opener, boolean owned, int maxBatch, Duration maxWait) {
    super(dialect);
    this.opener = opener;
    this.owned = owned;
    this.maxBatch = maxBatch;
    this.maxWaitNanos = maxWait.toNanos();
  }

  /** A step waiting for (or done by) a leader. */
  private static final class Step<T> {
    final Work<T> work;
    final Thread owner = Thread.currentThread();
    volatile boolean done;
    T result;
    Throwable failure;

    Step(Work<T> work) {
      this.work = work;
    }
  }

  @Override
  public boolean writesContended() {
    return writeLock.isLocked() || !waiting.isEmpty();
  }

  @Override
  protected <T> T inWriteTransaction(Work<T> work) {
    Step<T> step = new Step<>(work);
    waiting.add(step);
    while (!step.done) {
      if (writeLock.tryLock()) {
        try {
          if (!step.done) {
            lead();
          }
        } finally {
          writeLock.unlock();
        }
        wakeNextLeader();
      } else {
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
      }
    }
    return outcome(step);
  }

  private void wakeNextLeader() {
    Step<?> next = waiting.peek();
    if (next != null) {
      LockSupport.unpark(next.owner);
    }
  }

  private <T> T outcome(Step<T> step) {
    Throwable f = step.failure;
    if (f == null) {
      return step.result;
    }
    throw propagate(f, "write transaction failed");
  }

  /**
   * Runs one batch of waiting steps; called with the write lock held. Beginning may wait for the
   * file (another writer of this process holds its turn, or another process its lock): the steps
   * that queue meanwhile join the batch once the transaction has begun, up to {@code maxBatch},
   * instead of waiting for the next commit. The wait for company ({@code maxWait}) happens before
   * the transaction begins, never while this connection holds the file.
   */
  private void lead() {
    List<Step<?>> batch = drain();
    if (batch.isEmpty()) {
      return;
    }
    Connection c;
    long started = events().enabled() ? System.nanoTime() : 0;
    try {
      c = writer();
      begin(c);
    } catch (RuntimeException | SQLException e) {
      dropWriterAfter(e);
      finishAll(batch, e instanceof SQLException s ? storeError("cannot begin a write", s) : e);
      return;
    }
    pollInto(batch); // those that came while the file was busy
    boolean committed = batch.size() == 1 ? runAlone(c, batch.get(0)) : runGrouped(c, batch);
    if (committed && started != 0) {
      events()
          .publish(
              new OnceOnlyEvent.GroupCommitted(
                  batch.size(), Duration.ofNanos(System.nanoTime() - started)));
    }
  }

  /**
   * Takes the steps waiting now, up to {@code maxBatch}. With a positive {@code maxWait} the leader
   * then waits for more only while company keeps arriving: a lone caller (nothing else queued)
   * leaves at once, and a leader whose last pause brought no new step stops waiting. It waits
   * parked, in slices of {@link #WAIT_SLICE_NANOS}, never spinning, and never past {@code maxWait}.
   */
  private List<Step<?>> drain() {
    List<Step<?>> batch = new ArrayList<>(Math.min(maxBatch, 64));
    pollInto(batch);
    if (maxWaitNanos <= 0 || batch.size() <= 1) {
      return batch;
    }
    long deadline = System.nanoTime() + maxWaitNanos;
    while (batch.size() < maxBatch) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      LockSupport.parkNanos(this, Math.min(left, WAIT_SLICE_NANOS));
      if (pollInto(batch) == 0) {
        break; // nobody arrived during the pause: the burst is over
      }
    }
    return batch;
  }

  /** How long a leader pauses at a time while steps are still arriving. */
  private static final long WAIT_SLICE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

  /** Moves waiting steps into {@code batch} up to {@code maxBatch}; returns how many. */
  private int pollInto(List<Step<?>> batch) {
    int taken = 0;
    while (batch.size() < maxBatch) {
      Step<?> s = waiting.poll();
      if (s == null) {
        break;
      }
      batch.add(s);
      taken++;
    }
    return taken;
  }

  /** Runs a lone step and commits it; returns whether it committed. */
  private boolean runAlone(Connection c, Step<?> step) {
    boolean committed = false;
    try {
      runInto(step, c);
      commit(c);
      committed = true;
    } catch (Throwable t) {
      rollback(c, t);
      dropWriterAfter(t);
      step.result = null;
      step.failure = t;
    }
    finish(step);
    return committed;
  }

  /** Runs a batch under savepoints and commits it once; returns whether it committed. */
  private boolean runGrouped(Connection c, List<Step<?>> batch) {
    for (Step<?> step : batch) {
      try {
        execute(c, "SAVEPOINT onceonly_group");
        try {
          runInto(step, c);
          execute(c, "RELEASE SAVEPOINT onceonly_group");
        } catch (Throwable t) {
          step.failure = t;
          execute(c, "ROLLBACK TO SAVEPOINT onceonly_group");
          execute(c, "RELEASE SAVEPOINT onceonly_group");
        }
      } catch (SQLException e) {
        // The connection itself failed: nothing of this batch can commit.
        rollback(c, e);
        dropWriterAfter(e);
        finishAll(batch, storeError("group transaction failed", e));
        return false;
      }
    }
    try {
      commit(c);
    } catch (SQLException e) {
      rollback(c, e);
      dropWriterAfter(e);
      finishAll(batch, storeError("commit failed; no step of the batch was committed", e));
      return false;
    }
    batch.forEach(SingleConnectionDatabase::finish);
    return true;
  }

  private static <T> void runInto(Step<T> step, Connection c) throws SQLException {
    step.result = step.work.run(c);
  }

  private static void finishAll(List<Step<?>> batch, Throwable failure) {
    for (Step<?> s : batch) {
      s.result = null;
      s.failure = failure;
      finish(s);
    }
  }

  private static void finish(Step<?> step) {
    step.done = true;
    LockSupport.unpark(step.owner);
  }

  @Override
  protected <T> T inReadConnection(Work<T> work) {
    if (!owned) {
      return inWriteTransaction(work); // one caller connection: reads take turns with writes
    }
    readerPermits.acquireUninterruptibly();
    Connection c = null;
    try {
      c = reader();
      T result = work.run(c);
      idleReaders.add(c);
      return result;
    } catch (SQLException e) {
      closeQuietly(c);
      throw storeError("read failed", e);
    } catch (RuntimeException | Error e) {
      if (c != null) {
        idleReaders.add(c); // the work failed, not the connection
      }
      throw e;
    } finally {
      readerPermits.release();
    }
  }

  /**
   * Closes the write connection this object opened after a failure that says the connection could
   * not write its file (SQLite's {@code SQLITE_READONLY}, {@code SQLITE_IOERR} or {@code
   * SQLITE_CANTOPEN}, anywhere in the causes), so that the next write opens a new one. A SQLite
   * connection opened while its file was unwritable stays read-only for its whole life; one that
   * met an I/O error may keep the pager's error state. Opening anew costs one connection, and only
   * after such a failure.
   */
  private void dropWriterAfter(Throwable failure) {
    if (owned && writer != null && cannotWrite(failure)) {
      writer = closeQuietly(writer);
    }
  }

  private static boolean cannotWrite(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e) {
        int code = e.getErrorCode() & 0xFF;
        if (code == SQLITE_READONLY || code == SQLITE_IOERR || code == SQLITE_CANTOPEN) {
          return true;
        }
      }
    }
    return false;
  }

  private static final int SQLITE_READONLY = 8;
  private static final int SQLITE_IOERR = 10;
  private static final int SQLITE_CANTOPEN = 14;

  private Connection writer() throws SQLException {
    checkOpen();
    if (writer == null || writer.isClosed()) {
      writer = owned ? StatementCache.wrap(opener.open(), 64) : opener.open();
    }
    return writer;
  }

  /** Takes an idle read connection or opens one; at most {@value #MAX_READERS} exist. */
  private Connection reader() throws SQLException {
    checkOpen();
    Connection c = idleReaders.poll();
    while (c != null && c.isClosed()) {
      c = idleReaders.poll();
    }
    return c != null ? c : StatementCache.wrap(opener.open(), 64);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("OnceOnly store is closed");
    }
  }

  private static Connection closeQuietly(Connection c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (SQLException e) {
      // already failing; the original error is what matters
    }
    return null;
  }

  @Override
  public void close() {
    closed = true;
    writeLock.lock();
    readerPermits.acquireUninterruptibly(MAX_READERS); // waits for reads in flight
    try {
      if (owned) {
        closeConnection(writer);
        for (Connection c = idleReaders.poll(); c != null; c = idleReaders.poll()) {
          closeConnection(c);
        }
      }
    } finally {
      writer = null;
      readerPermits.release(MAX_READERS);
      writeLock.unlock();
    }
  }

  private void closeConnection(Connection c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (SQLException e) {
      throw new StoreException("cannot close the database", dialect().id(), e);
    }
  }
}
