package dev.onceonly.reliability;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The soak's work in one process: {@code threads} client threads for {@code duration}, each step
 * one of: a receipts step on a new key (45 %), on a key shared by every process (25 %: one of them
 * creates it, the others repeat it), on a key this thread did before (15 %: repeated, or expired
 * once purged), a queue send of an intent that a {@link Worker} of this process (2 threads) works
 * off with a receipts step inside {@code completeWith} (13 %), or a purge of up to 100 receipts (2
 * %). Results are kept for 2 seconds, so purges have work and repeats meet tombstones. Every effect
 * writes one row to {@code soak_effects}, which has no unique constraint: a duplicate is an extra
 * row.
 *
 * <p>It counts what the library answered, so the checker can balance it against the rows: every
 * {@code Created} (direct or by the worker) must have exactly one effect row, and no row may exist
 * without one.
 */
public final class SoakWorkload {
  static final String SCOPE = "soak";
  static final String QUEUE = "soak";
  static final int SHARED_KEYS = 20_000;
  static final String EFFECTS_DDL =
      "CREATE TABLE IF NOT EXISTS soak_effects"
          + " (scope TEXT NOT NULL, intent_key TEXT NOT NULL, process TEXT NOT NULL)";

  private final String process;
  private final LongAdder created = new LongAdder();
  private final LongAdder repeated = new LongAdder();
  private final LongAdder expired = new LongAdder();
  private final LongAdder sent = new LongAdder();
  private final LongAdder workerCreated = new LongAdder();
  private final LongAdder purged = new LongAdder();
  private final AtomicLong maxHeap = new AtomicLong();

  public SoakWorkload(String process) {
    this.process = process;
  }

  /** What one process did. */
  public record Summary(
      String process,
      long steps,
      long created,
      long repeated,
      long expired,
      long sent,
      long workerCreated,
      long purged,
      double seconds,
      long p50Micros,
      long p99Micros,
      long maxHeapMiB) {
    /** One line, {@code name=value} separated by spaces, readable by {@link #parse}. */
    public String line() {
      return String.format(
          Locale.ROOT,
          "summary process=%s steps=%d created=%d repeated=%d expired=%d sent=%d workerCreated=%d"
              + " purged=%d seconds=%.1f p50us=%d p99us=%d maxHeapMiB=%d",
          process,
          steps,
          created,
          repeated,
          expired,
          sent,
          workerCreated,
          purged,
          seconds,
          p50Micros,
          p99Micros,
          maxHeapMiB);
    }

    static Summary parse(String line) {
      Map<String, String> v = new HashMap<>();
      for (String part : line.substring("summary ".length()).split(" ")) {
        int eq = part.indexOf('=');
        v.put(part.substring(0, eq), part.substring(eq + 1));
      }
      return new Summary(
          v.get("process"),
          Long.parseLong(v.get("steps")),
          Long.parseLong(v.get("created")),
          Long.parseLong(v.get("repeated")),
          Long.parseLong(v.get("expired")),
          Long.parseLong(v.get("sent")),
          Long.parseLong(v.get("workerCreated")),
          Long.parseLong(v.get("purged")),
          Double.parseDouble(v.get("seconds")),
          Long.parseLong(v.get("p50us")),
          Long.parseLong(v.get("p99us")),
          Long.parseLong(v.get("maxHeapMiB")));
    }
  }

  /** Opens the store the way every soak process does. */
  static OnceOnly open(Path file) {
    return OnceOnly.builder()
        .sqlite(file)
        .resultRetention(Duration.ofSeconds(2))
        .busyTimeout(Duration.ofSeconds(30))
        .build();
  }

  static void createEffectTable(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(EFFECTS_DDL);
    }
  }

  /**
   * Runs the client threads for {@code duration}, and the worker until this process's messages are
   * worked off; {@code file} is where to look for them.
   */
  public Summary run(OnceOnly once, Path file, int threads, Duration duration, long seed)
      throws InterruptedException, SQLException {
    JobQueue queue = once.queue();
    long[][] latencies = new long[threads][];
    int[] counts = new int[threads];
    CountDownLatch done = new CountDownLatch(threads);
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    long start = System.nanoTime();
    long end = start + duration.toNanos();
    try (Worker worker = worker(once, queue).start()) {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        Thread th =
            new Thread(
                () -> {
                  try {
                    latencies[thread] = client(once, queue, thread, end, seed, counts);
                  } catch (Throwable e) {
                    failures.add(e);
                  } finally {
                    done.countDown();
                  }
                },
                "soak-" + process + "-" + t);
        th.start();
      }
      done.await();
      awaitOwnMessages(file);
    }
    if (!failures.isEmpty()) {
      AssertionError e = new AssertionError("soak clients failed: " + failures.get(0));
      failures.forEach(e::addSuppressed);
      throw e;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long[] all = merge(latencies, counts);
    return new Summary(
        process,
        all.length,
        created.sum(),
        repeated.sum(),
        expired.sum(),
        sent.sum(),
        workerCreated.sum(),
        purged.sum(),
        seconds,
        percentile(all, 0.50) / 1_000,
        percentile(all, 0.99) / 1_000,
        maxHeap.get() >> 20);
  }

  private long[] client(
      OnceOnly once, JobQueue queue, int thread, long end, long seed, int[] counts)
      throws SQLException {
    SplittableRandom r = new SplittableRandom(seed ^ (process.hashCode() * 31L + thread));
    long[] lat = new long[1 << 16];
    int n = 0;
    long own = 0;
    while (System.nanoTime() - end < 0) {
      int roll = r.nextInt(100);
      long begun = System.nanoTime();
      if (roll < 45) {
        step(once, "new-" + process + "-" + thread + "-" + own++);
      } else if (roll < 70) {
        step(once, "shared-" + r.nextInt(SHARED_KEYS));
      } else if (roll < 85 && own > 0) {
        step(once, "new-" + process + "-" + thread + "-" + r.nextLong(own));
      } else if (roll < 98) {
        IntentKey key = IntentKey.of(SCOPE, "msg-" + process + "-" + thread + "-" + own++);
        SendResult s = queue.send(QUEUE, key.key(), Map.of("key", key.key()));
        if (s.status() == SendResult.Status.SENT) {
          sent.increment();
        }
      } else {
        purged.add(once.receipts().purge(100).total());
      }
      if (n == lat.length) {
        lat = Arrays.copyOf(lat, n * 2);
      }
      lat[n++] = System.nanoTime() - begun;
      if ((n & 255) == 0) {
        sampleHeap();
      }
    }
    sampleHeap();
    counts[thread] = n;
    return lat;
  }

  /** Heap in use (live and garbage not yet collected), the peak over the run. */
  private void sampleHeap() {
    Runtime rt = Runtime.getRuntime();
    maxHeap.accumulateAndGet(rt.totalMemory() - rt.freeMemory(), Math::max);
  }

  private void step(OnceOnly once, String key) throws SQLException {
    Outcome<String> o =
        once.receipts()
            .execute(
                IntentKey.of(SCOPE, key),
                "soak",
                Map.of("key", key),
                String.class,
                tx -> insertEffect(tx, key));
    if (o instanceof Outcome.Created) {
      created.increment();
    } else if (o instanceof Outcome.Repeated) {
      repeated.increment();
    } else if (o instanceof Outcome.Expired) {
      expired.increment();
    } else {
      throw new AssertionError(key + " answered " + o);
    }
  }

  private String insertEffect(Connection tx, String key) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement(
            "INSERT INTO soak_effects (scope, intent_key, process) VALUES (?, ?, ?)")) {
      ps.setString(1, SCOPE);
      ps.setString(2, key);
      ps.setString(3, process);
      ps.executeUpdate();
    }
    return process;
  }

  private Worker worker(OnceOnly once, JobQueue queue) {
    return Worker.builder(
            queue,
            QUEUE,
            job -> {
              String key = job.payload().get("key").asText();
              Outcome<?>[] outcome = new Outcome<?>[1];
              QueueResult r =
                  job.completeWith(
                      tx ->
                          outcome[0] =
                              once.receipts()
                                  .execute(
                                      tx,
                                      IntentKey.of(SCOPE, key),
                                      "soak",
                                      Map.of("key", key),
                                      String.class,
                                      c -> insertEffect(c, key)));
              if (r instanceof QueueResult.Completed && outcome[0] instanceof Outcome.Created) {
                workerCreated.increment();
              }
            })
        .threads(2)
        .lease(Duration.ofSeconds(30))
        .idleBackoff(Duration.ofMillis(1), Duration.ofMillis(50))
        .build();
  }

  /**
   * Waits until no message this process sent is left in the queue. The workers of every process
   * share the queue, so another process's worker may have worked some of them off; the checker
   * balances the sums over all processes.
   */
  private void awaitOwnMessages(Path file) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND message_key LIKE ?")) {
      ps.setString(1, QUEUE);
      ps.setString(2, "msg-" + process + "-%");
      Eventually.await(
          Duration.ofMinutes(2), process + ": its messages worked off", () -> count(ps) == 0);
    }
  }

  private static long count(PreparedStatement ps) {
    try (ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long[] merge(long[][] latencies, int[] counts) {
    int total = 0;
    for (int c : counts) {
      total += c;
    }
    long[] all = new long[total];
    int at = 0;
    for (int t = 0; t < latencies.length; t++) {
      System.arraycopy(latencies[t], 0, all, at, counts[t]);
      at += counts[t];
    }
    Arrays.sort(all);
    return all;
  }

  private static long percentile(long[] sorted, double p) {
    return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, p * sorted.length)];
  }
}
