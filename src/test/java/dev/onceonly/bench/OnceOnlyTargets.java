package dev.onceonly.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.Worker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * The OnceOnly sides of {@link WorkerBenchMain}, through the public API only: the {@link Worker},
 * the batched loop a user could write on {@link JobQueue#receive}, as the floor on PostgreSQL a raw
 * JDBC {@code FOR UPDATE SKIP LOCKED} loop doing the same batched work, and as the floor of jobs
 * sent and worked one by one on SQLite a raw JDBC loop of one commit per send and one per job.
 */
final class OnceOnlyTargets {
  static final String QUEUE = "jobs";
  static final int BATCH = 100;
  static final Duration LEASE = Duration.ofSeconds(60);

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private OnceOnlyTargets() {}

  static Object payload(String key) {
    return Map.of("key", key);
  }

  /** Sends and prefills through {@link JobQueue}; the workers are up to the subclass. */
  abstract static class QueueTarget implements WorkerBenchTarget {
    final OnceOnly once;
    final JobQueue queue;
    final int workers;

    /** How many partitions the messages are spread over, or 0 for none. */
    int partitions;

    QueueTarget(WorkerBenchStore store, int workers) {
      this(store, workers, b -> {});
    }

    QueueTarget(
        WorkerBenchStore store,
        int workers,
        java.util.function.Consumer<OnceOnlyBuilder> settings) {
      this.once = store.onceOnly(workers + 8, settings);
      this.queue = once.queue();
      this.workers = workers;
    }

    @Override
    public void prefill(int n) {
      List<Message> chunk = new ArrayList<>(1000);
      for (int i = 0; i < n; i++) {
        chunk.add(message("j" + i));
        if (chunk.size() == 1000 || i == n - 1) {
          queue.sendAll(chunk);
          chunk.clear();
        }
      }
    }

    @Override
    public void send(String key) {
      queue.send(message(key));
    }

    private Message message(String key) {
      Message m = Message.of(QUEUE, key, payload(key));
      return partitions == 0 ? m : m.partition("p" + Math.floorMod(key.hashCode(), partitions));
    }

    @Override
    public long queued() {
      return queue.depth(QUEUE);
    }
  }

  /**
   * The {@link Worker} with {@code threads(W)} and every other setting at its default. With {@code
   * later} false each job writes its row inside {@code job.completeWith}, so the row and the
   * acknowledgement commit together; with {@code later} true it hands the row to {@code
   * job.completeLater}, and the worker commits the rows with the acknowledgements of many jobs in
   * one transaction while the handler threads go on. Then a job counts as done when its handler
   * returns; the rows are checked after the worker closed, when every handed-over job has
   * committed.
   */
  static final class WorkerTarget extends QueueTarget {
    private final boolean later;
    private Worker worker;

    WorkerTarget(WorkerBenchStore store, int workers, boolean later) {
      this(store, workers, later, 0);
    }

    /**
     * A worker on a queue with a concurrency limit of {@code limit} (0 for none): with a limit
     * above what the worker holds, the cost of counting the leases in every claim.
     */
    WorkerTarget(WorkerBenchStore store, int workers, boolean later, int limit) {
      super(store, workers, limit == 0 ? b -> {} : b -> b.concurrencyLimit(QUEUE, limit));
      this.later = later;
    }

    /**
     * A worker on a queue whose messages are spread over 16 partitions, with a limit of {@code
     * perPartition} per partition: with a limit above what the worker holds, the cost of ranking
     * the due backlog in every claim.
     */
    static WorkerTarget partitioned(WorkerBenchStore store, int workers, int perPartition) {
      return new WorkerTarget(store, workers, perPartition);
    }

    private WorkerTarget(WorkerBenchStore store, int workers, int perPartition) {
      super(store, workers, b -> b.concurrencyLimitPerPartition(QUEUE, perPartition));
      this.later = false;
      this.partitions = 16;
    }

    @Override
    public void start(Sink sink) {
      Handler handler = later ? completingLater(sink) : completingWith(sink);
      worker = Worker.builder(queue, QUEUE, handler).threads(workers).build().start();
    }

    private static Handler completingWith(Sink sink) {
      return job -> {
        String key = job.delivery().key();
        sink.started(key);
        try {
          QueueResult r = job.completeWith(c -> insertDone(c, key));
          if (r instanceof QueueResult.Completed) {
            sink.done();
          } else {
            sink.failed(new IllegalStateException(key + ": " + r));
          }
        } catch (SQLException | RuntimeException e) {
          sink.failed(e);
          throw e;
        }
      };
    }

    private static Handler completingLater(Sink sink) {
      return job -> {
        String key = job.delivery().key();
        sink.started(key);
        job.completeLater(c -> insertDone(c, key));
        sink.done();
      };
    }

    private static Void insertDone(Connection c, String key) throws SQLException {
      WorkerBenchStore.insertDone(c, key);
      return null;
    }

    @Override
    public void stop() {
      if (worker != null) {
        worker.close();
        worker = null;
      }
    }
  }

  /**
   * The {@link Worker} with a {@link dev.onceonly.queue.BatchHandler} of up to {@link #BATCH} jobs
   * ({@code Worker.batchBuilder}) and {@code threads(W)}: each batch's rows go in one JDBC batch,
   * in the transaction that acknowledges its jobs. A job counts as done when the handler has
   * written its row, just before the commit; the rows are checked after the worker closed, so a
   * batch that did not commit shows as a mismatch.
   */
  static final class BatchWorkerTarget extends QueueTarget {
    private Worker worker;

    BatchWorkerTarget(WorkerBenchStore store, int workers) {
      super(store, workers);
    }

    @Override
    public void start(Sink sink) {
      worker =
          Worker.batchBuilder(
                  queue,
                  QUEUE,
                  BATCH,
                  (tx, deliveries) -> {
                    try (java.sql.PreparedStatement ps =
                        tx.prepareStatement("INSERT INTO done (job_key) VALUES (?)")) {
                      for (dev.onceonly.queue.Delivery d : deliveries) {
                        sink.started(d.key());
                        ps.setString(1, d.key());
                        ps.addBatch();
                      }
                      ps.executeBatch();
                    }
                    deliveries.forEach(d -> sink.done());
                  })
              .threads(workers)
              .build()
              .start();
    }

    @Override
    public void stop() {
      if (worker != null) {
        worker.close();
        worker = null;
      }
    }
  }

  /**
   * A loop on the public API: receive up to 100, write their rows and acknowledge them all in one
   * transaction ({@link OnceOnly#inTransaction} with {@link JobQueue#ack(Connection,
   * dev.onceonly.queue.Lease)}).
   */
  static final class BatchedTarget extends QueueTarget {
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    BatchedTarget(WorkerBenchStore store, int workers) {
      super(store, workers);
    }

    @Override
    public void start(Sink sink) {
      running = true;
      for (int i = 0; i < workers; i++) {
        Thread t = new Thread(() -> loop(sink), "bench-batched-" + i);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
    }

    private void loop(Sink sink) {
      while (running) {
        try {
          List<Delivery> batch = queue.receive(QUEUE, BATCH, LEASE);
          if (batch.isEmpty()) {
            LockSupport.parkNanos(1_000_000);
            continue;
          }
          int acked =
              once.inTransaction(
                  tx -> {
                    int n = 0;
                    try (PreparedStatement ps =
                        tx.prepareStatement("INSERT INTO done (job_key) VALUES (?)")) {
                      for (Delivery d : batch) {
                        ps.setString(1, d.key());
                        ps.addBatch();
                      }
                      ps.executeBatch();
                    }
                    for (Delivery d : batch) {
                      if (queue.ack(tx, d.lease()) instanceof QueueResult.Completed) {
                        n++;
                      }
                    }
                    return n;
                  });
          for (int i = 0; i < acked; i++) {
            sink.done();
          }
          if (acked != batch.size()) {
            sink.failed(new IllegalStateException((batch.size() - acked) + " acks lost"));
          }
        } catch (SQLException | RuntimeException e) {
          sink.failed(e);
        }
      }
    }

    @Override
    public void stop() throws InterruptedException {
      running = false;
      for (Thread t : threads) {
        t.join();
      }
      threads.clear();
    }
  }

  /**
   * Raw JDBC on PostgreSQL, the floor for the batched loop: a table of its own, and per
   * transaction: claim up to 100 with {@code FOR UPDATE SKIP LOCKED}, read their JSON payloads,
   * insert their rows, delete them, commit.
   */
  static final class RawSkipLockedTarget implements WorkerBenchTarget {
    private final DataSource pool;
    private final int workers;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    RawSkipLockedTarget(WorkerBenchStore store, int workers) throws SQLException {
      if (store.kind.sqlite()) {
        throw new IllegalArgumentException("the raw SKIP LOCKED loop needs PostgreSQL");
      }
      this.pool = store.pool(workers + 4);
      this.workers = workers;
      try (Connection c = pool.getConnection()) {
        BenchDb.exec(
            c,
            "CREATE TABLE raw_jobs (id BIGSERIAL PRIMARY KEY, job_key TEXT NOT NULL UNIQUE,"
                + " payload JSONB NOT NULL, deliver_at TIMESTAMPTZ NOT NULL DEFAULT now())",
            "CREATE INDEX raw_jobs_due ON raw_jobs (deliver_at, id)");
      }
    }

    @Override
    public void prefill(int n) throws Exception {
      try (Connection c = pool.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO raw_jobs (job_key, payload) VALUES (?, CAST(? AS JSONB))")) {
        c.setAutoCommit(false);
        for (int i = 0; i < n; i++) {
          ps.setString(1, "j" + i);
          ps.setString(2, MAPPER.writeValueAsString(payload("j" + i)));
          ps.addBatch();
          if (i % 1000 == 999 || i == n - 1) {
            ps.executeBatch();
            c.commit();
          }
        }
        c.setAutoCommit(true);
      }
    }

    @Override
    public void send(String key) {
      throw new UnsupportedOperationException("the raw loop is a drain baseline only");
    }

    @Override
    public void start(Sink sink) {
      running = true;
      for (int i = 0; i < workers; i++) {
        Thread t = new Thread(() -> loop(sink), "bench-raw-" + i);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
    }

    private void loop(Sink sink) {
      try (Connection c = pool.getConnection();
          PreparedStatement claim =
              c.prepareStatement(
                  "SELECT id, job_key, payload FROM raw_jobs WHERE deliver_at <= now()"
                      + " ORDER BY deliver_at, id LIMIT "
                      + BATCH
                      + " FOR UPDATE SKIP LOCKED");
          PreparedStatement insert = c.prepareStatement("INSERT INTO done (job_key) VALUES (?)");
          PreparedStatement delete =
              c.prepareStatement("DELETE FROM raw_jobs WHERE id = ANY (?)")) {
        c.setAutoCommit(false);
        while (running) {
          List<Long> ids = new ArrayList<>(BATCH);
          try (ResultSet rs = claim.executeQuery()) {
            while (rs.next()) {
              ids.add(rs.getLong(1));
              insert.setString(1, rs.getString(2));
              insert.addBatch();
              MAPPER.readTree(rs.getString(3));
            }
          }
          if (ids.isEmpty()) {
            c.commit();
            LockSupport.parkNanos(1_000_000);
            continue;
          }
          insert.executeBatch();
          delete.setArray(1, c.createArrayOf("bigint", ids.toArray()));
          delete.executeUpdate();
          c.commit();
          for (int i = 0; i < ids.size(); i++) {
            sink.done();
          }
        }
      } catch (Exception e) {
        sink.failed(e);
      }
    }

    @Override
    public void stop() throws InterruptedException {
      running = false;
      for (Thread t : threads) {
        t.join();
      }
      threads.clear();
    }

    @Override
    public long queued() throws SQLException {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM raw_jobs")) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * The floor of a job sent alone and worked alone on SQLite: raw JDBC, one commit to queue a job
   * (an auto-commit {@code INSERT} on a pooled connection) and one commit to work it (its row in
   * {@code done} and the job's {@code DELETE} in one transaction), on one worker thread with its
   * own connection. Two commits a job, each on its own connection, as a user's hand-written table
   * queue would do; nothing is shared between them.
   */
  static final class RawOneByOneTarget implements WorkerBenchTarget {
    private final WorkerBenchStore store;
    private final DataSource pool;
    private Thread thread;
    private volatile boolean running;

    RawOneByOneTarget(WorkerBenchStore store, int workers) throws SQLException {
      if (!store.kind.sqlite() || workers != 1) {
        throw new IllegalArgumentException("the one-by-one floor is SQLite with one worker");
      }
      this.store = store;
      this.pool = store.pool(8);
      try (Connection c = store.connect()) {
        BenchDb.exec(
            c,
            "CREATE TABLE raw_jobs (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                + " job_key TEXT NOT NULL UNIQUE, payload TEXT NOT NULL)");
      }
    }

    @Override
    public void prefill(int n) {
      throw new UnsupportedOperationException("the one-by-one floor is a live baseline only");
    }

    @Override
    public void send(String key) throws Exception {
      try (Connection c = pool.getConnection();
          PreparedStatement ps =
              c.prepareStatement("INSERT INTO raw_jobs (job_key, payload) VALUES (?, ?)")) {
        ps.setString(1, key);
        ps.setString(2, MAPPER.writeValueAsString(payload(key)));
        ps.executeUpdate();
      }
    }

    @Override
    public void start(Sink sink) {
      running = true;
      thread = new Thread(() -> loop(sink), "bench-raw-one-by-one");
      thread.setDaemon(true);
      thread.start();
    }

    private void loop(Sink sink) {
      // The read is outside the transaction: a deferred transaction that read before the
      // producer's commit could not write after it (SQLITE_BUSY_SNAPSHOT). One worker, so the job
      // read is still there when the transaction deletes it.
      try (Connection c = store.connect();
          PreparedStatement next =
              c.prepareStatement("SELECT id, job_key, payload FROM raw_jobs ORDER BY id LIMIT 1");
          PreparedStatement insert = c.prepareStatement("INSERT INTO done (job_key) VALUES (?)");
          PreparedStatement delete = c.prepareStatement("DELETE FROM raw_jobs WHERE id = ?")) {
        while (running) {
          long id;
          String key;
          try (ResultSet rs = next.executeQuery()) {
            if (!rs.next()) {
              LockSupport.parkNanos(100_000);
              continue;
            }
            id = rs.getLong(1);
            key = rs.getString(2);
            MAPPER.readTree(rs.getString(3));
          }
          sink.started(key);
          c.setAutoCommit(false);
          insert.setString(1, key);
          insert.executeUpdate();
          delete.setLong(1, id);
          delete.executeUpdate();
          c.commit();
          c.setAutoCommit(true);
          sink.done();
        }
      } catch (Exception e) {
        sink.failed(e);
      }
    }

    @Override
    public void stop() throws InterruptedException {
      running = false;
      if (thread != null) {
        thread.join();
        thread = null;
      }
    }

    @Override
    public long queued() throws SQLException {
      return store.count("SELECT COUNT(*) FROM raw_jobs");
    }
  }
}
