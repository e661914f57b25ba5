package dev.onceonly.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.Message;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Jobs through the queue: send a batch, receive it under leases, acknowledge it; three transactions
 * per batch of {@value #BATCH}. The raw loop runs the same SQL on a table of the same shape, with
 * statements prepared once and payloads already serialized. Scores are jobs/s.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class QueueBenchmark {
  static final int BATCH = 100;
  static final String FINGERPRINT = "jcs-sha256:" + "0".repeat(64);
  static final ObjectMapper MAPPER = new ObjectMapper();

  @Param({"FULL"})
  public String sync;

  Path file;
  OnceOnly once;
  final AtomicInteger threads = new AtomicInteger();

  @Setup(Level.Trial)
  public void open() throws SQLException {
    file = BenchDb.newFile();
    once = BenchDb.open(file, sync);
    BenchDb.createRawTables(file, sync);
  }

  @TearDown(Level.Trial)
  public void close() {
    once.close();
    BenchDb.delete(file);
  }

  /** Per-thread state: a key sequence and a raw connection with its statements. */
  @State(Scope.Thread)
  public static class PerThread {
    String prefix;
    int next;
    Connection raw;
    PreparedStatement begin;
    PreparedStatement commit;
    PreparedStatement insert;
    PreparedStatement claim;
    PreparedStatement ack;

    @Setup(Level.Trial)
    public void open(QueueBenchmark bench) throws SQLException {
      prefix = "t" + bench.threads.incrementAndGet() + "-" + System.nanoTime() + "-";
      raw = BenchDb.raw(bench.file, bench.sync);
      begin = raw.prepareStatement("BEGIN IMMEDIATE");
      commit = raw.prepareStatement("COMMIT");
      insert =
          raw.prepareStatement(
              "INSERT INTO raw_messages (queue, message_key, fingerprint, payload, payload_ref,"
                  + " deliver_at, created_at) VALUES ('jobs', ?, ?, ?, NULL, ?, ?)"
                  + " ON CONFLICT (queue, message_key) DO NOTHING");
      claim =
          raw.prepareStatement(
              "UPDATE raw_messages SET deliver_at = ?, fence = fence + 1, attempts = attempts + 1,"
                  + " first_claimed_at = COALESCE(first_claimed_at, ?) WHERE id IN (SELECT id"
                  + " FROM raw_messages WHERE queue = 'jobs' AND deliver_at <= ?"
                  + " ORDER BY deliver_at, id LIMIT ?) RETURNING id, message_key, payload,"
                  + " payload_ref, fence, attempts, created_at, last_error");
      ack =
          raw.prepareStatement(
              "DELETE FROM raw_messages WHERE id = ? AND fence = ? RETURNING payload_ref");
    }

    @TearDown(Level.Trial)
    public void close() throws SQLException {
      raw.close();
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int onceonly_sendReceiveAck(PerThread t) {
    int done = sendReceiveAck(once, t.prefix, t.next);
    t.next += BATCH;
    return done;
  }

  /**
   * The library's side of a queue benchmark: sends {@value #BATCH} messages with keys {@code prefix
   * + first ...}, receives a batch and acknowledges it; returns how many were acknowledged.
   */
  static int sendReceiveAck(OnceOnly once, String prefix, int first) {
    List<Message> batch = new ArrayList<>(BATCH);
    for (int i = 0; i < BATCH; i++) {
      batch.add(Message.of("jobs", prefix + (first + i), Map.of("n", first + i + 1)));
    }
    once.queue().sendAll(batch);
    List<Delivery> got = once.queue().receive("jobs", BATCH, Duration.ofMinutes(5));
    List<Lease> leases = new ArrayList<>(got.size());
    for (Delivery d : got) {
      leases.add(d.lease());
    }
    return once.queue().ackAll(leases).size();
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int raw_sendReceiveAck(PerThread t) throws Exception {
    long now = System.currentTimeMillis();
    t.begin.execute();
    for (int i = 0; i < BATCH; i++) {
      t.insert.setString(1, t.prefix + t.next++);
      t.insert.setString(2, FINGERPRINT);
      t.insert.setString(3, MAPPER.writeValueAsString(Map.of("n", t.next)));
      t.insert.setLong(4, now);
      t.insert.setLong(5, now);
      t.insert.executeUpdate();
    }
    t.commit.execute();
    t.begin.execute();
    List<long[]> leases = new ArrayList<>(BATCH);
    t.claim.setLong(1, now + 300_000);
    t.claim.setLong(2, now);
    t.claim.setLong(3, now);
    t.claim.setInt(4, BATCH);
    try (ResultSet rs = t.claim.executeQuery()) {
      while (rs.next()) {
        MAPPER.readTree(rs.getString(3));
        leases.add(new long[] {rs.getLong(1), rs.getLong(5)});
      }
    }
    t.commit.execute();
    t.begin.execute();
    for (long[] l : leases) {
      t.ack.setLong(1, l[0]);
      t.ack.setLong(2, l[1]);
      try (ResultSet rs = t.ack.executeQuery()) {
        rs.next();
      }
    }
    t.commit.execute();
    return leases.size();
  }
}
