package dev.onceonly.bench;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.micrometer.OnceOnlyMetrics;
import dev.onceonly.micrometer.StoreGauges;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.Message;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cost of the Micrometer listener: the receipts workload (two threads, each a created step on a
 * new key then a repeated step on a known one) and the queue workload (one thread: send ten,
 * receive them, acknowledge them in one batch), each on a store without a listener (A) and on a
 * store with {@link OnceOnlyMetrics} on a {@code SimpleMeterRegistry} and its gauges sampled every
 * second (B; {@code gaugeSeconds=N} samples every N seconds instead, {@code gaugeSeconds=3600}
 * leaves the gauges out of a run; {@code workloads=receipts} runs one), in the order A B B A, so
 * that a drift of the shared machine falls on both alike. Prints each phase's rate, the load
 * average before and after, B's rate relative to A's, and what one gauge sample costs at the end
 * against a full status.
 *
 * <pre>
 * mvn -B -Pbench test-compile exec:exec -Dbench.main=dev.onceonly.bench.MetricsOverheadMain \
 *     -Dbench.args="seconds=5"
 * </pre>
 */
public final class MetricsOverheadMain {
  private MetricsOverheadMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> arguments = WorkerBenchMain.arguments(args);
    int seconds = Integer.parseInt(arguments.getOrDefault("seconds", "5"));
    long gaugeSeconds = Long.parseLong(arguments.getOrDefault("gaugeSeconds", "1"));
    System.out.println("load average before: " + load());
    List<String> workloads =
        List.of(arguments.getOrDefault("workloads", "receipts,queue").split(","));
    for (String workload : workloads) {
      Path plainFile = BenchDb.newFile();
      Path meteredFile = BenchDb.newFile();
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      OnceOnlyMetrics metrics = OnceOnlyMetrics.of(registry);
      try (OnceOnly plain = BenchDb.open(plainFile, "NORMAL");
          OnceOnly metered =
              OnceOnly.builder()
                  .sqlite(meteredFile)
                  .synchronous(OnceOnly.Synchronous.NORMAL)
                  .busyTimeout(Duration.ofSeconds(60))
                  .listener(metrics)
                  .build();
          StoreGauges gauges =
              StoreGauges.of(metered.maintenance(), Duration.ofSeconds(gaugeSeconds))) {
        metrics.bindDropped(metered.events());
        gauges.bindTo(registry);
        prepare(plain);
        prepare(metered);
        run(workload, plain, 3); // warm-up (the JIT, the files' first pages), not counted
        run(workload, metered, 3);
        double[] a = new double[2];
        double[] b = new double[2];
        a[0] = run(workload, plain, seconds);
        b[0] = run(workload, metered, seconds);
        b[1] = run(workload, metered, seconds);
        a[1] = run(workload, plain, seconds);
        System.out.printf(
            Locale.ROOT,
            "%s: A %.0f/s, B %.0f/s, B %.0f/s, A %.0f/s; with metrics %.1f%% of without;"
                + " events dropped %d%n",
            workload,
            a[0],
            b[0],
            b[1],
            a[1],
            100 * (b[0] + b[1]) / (a[0] + a[1]),
            metered.events().dropped());
        readCosts(metered);
      } finally {
        BenchDb.delete(plainFile);
        BenchDb.delete(meteredFile);
      }
    }
    System.out.println("load average after: " + load());
  }

  /**
   * What one gauge sample reads now, against a full status on the same store: the median of five
   * calls of each, alternating, with the receipts the store holds by then.
   */
  private static void readCosts(OnceOnly once) {
    long[] backlog = new long[5];
    long[] status = new long[5];
    long receipts = 0;
    for (int i = 0; i < 5; i++) {
      long t0 = System.nanoTime();
      once.maintenance().backlog();
      long t1 = System.nanoTime();
      var s = once.maintenance().status();
      long t2 = System.nanoTime();
      backlog[i] = t1 - t0;
      status[i] = t2 - t1;
      receipts = s.receiptsLive() + s.receiptsExpired() + s.tombstones();
    }
    java.util.Arrays.sort(backlog);
    java.util.Arrays.sort(status);
    System.out.printf(
        Locale.ROOT,
        "  a gauge sample (backlog()) %.2f ms, a status() %.2f ms, at %,d receipts%n",
        backlog[2] / 1e6,
        status[2] / 1e6,
        receipts);
  }

  private static void prepare(OnceOnly once) {
    for (int i = 0; i < 1000; i++) {
      once.receipts()
          .execute(IntentKey.of("hot", "k" + i), "touch", Map.of("i", i), Integer.class, c -> 1);
    }
  }

  /** Runs a workload for {@code seconds}; returns operations per second. */
  private static double run(String workload, OnceOnly once, int seconds) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    AtomicLong ops = new AtomicLong();
    int threads = workload.equals("receipts") ? 2 : 1;
    CountDownLatch done = new CountDownLatch(threads);
    List<Throwable> failures = new ArrayList<>();
    long start = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      String name = "t" + t + "-" + start;
      Thread thread =
          new Thread(
              () -> {
                try {
                  long n = 0;
                  while (System.nanoTime() - until < 0) {
                    ops.addAndGet(
                        workload.equals("receipts")
                            ? receiptsStep(once, name, n++)
                            : queueRound(once, name, n++));
                  }
                } catch (Throwable e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                } finally {
                  done.countDown();
                }
              });
      thread.start();
    }
    done.await();
    if (!failures.isEmpty()) {
      throw new IllegalStateException("workload failed", failures.get(0));
    }
    return ops.get() / ((System.nanoTime() - start) / 1e9);
  }

  private static int receiptsStep(OnceOnly once, String name, long n) {
    once.receipts()
        .execute(
            IntentKey.of("new", name + "-" + n), "touch", Map.of("n", n), Integer.class, c -> 1);
    once.receipts()
        .execute(
            IntentKey.of("hot", "k" + (n % 1000)),
            "touch",
            Map.of("i", n % 1000),
            Integer.class,
            c -> 1);
    return 2;
  }

  private static int queueRound(OnceOnly once, String name, long n) {
    List<Message> batch = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      batch.add(Message.of("bench", name + "-" + n + "-" + i, Map.of("i", i)));
    }
    once.queue().sendAll(batch);
    List<Delivery> got = once.queue().receive("bench", 10, Duration.ofMinutes(1));
    List<Lease> leases = got.stream().map(Delivery::lease).toList();
    once.queue().ackAll(leases);
    return got.size();
  }

  private static String load() throws IOException {
    return Files.readString(Path.of("/proc/loadavg")).trim();
  }
}
