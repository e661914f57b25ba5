package dev.onceonly.race;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildArgs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One instance for {@link LimitProcessesTest}: workers on the queue {@code limited}, declared with
 * a concurrency limit of 2 as every instance of the application does. Its handler prints {@code
 * start <nanoTime>} and {@code end <nanoTime>} around 20 ms of work (the monotonic clock is the
 * machine's, shared by the processes) and commits a {@code runs} row with the acknowledgement.
 *
 * <p>It starts with a worker of one thread that claims one job at a time (no prefetch) and whose
 * handler, until the test sends {@code go}, prints {@code held <worker>} and holds its message:
 * each process then holds at most one lease, so the test sees the limit reached by two processes at
 * once, on a condition rather than by chance. On {@code go} every held handler carries on and a
 * second worker of four threads starts beside the first, so that threads of one process compete
 * too.
 *
 * <p>With {@code partitioned=true} the queue is declared instead with a limit of {@value
 * #PER_PARTITION} per partition (the partition is the message key's prefix before {@code /}), and
 * the lines are {@code start <partition> <nanoTime>} and {@code end <partition> <nanoTime>}.
 *
 * <p>Arguments ({@code name=value}): {@code file} (a SQLite file) or {@code url} (PostgreSQL),
 * {@code worker}, optionally {@code partitioned}. Prints {@code ready}, runs until stdin closes.
 */
public final class LimitProcessMain {
  static final String QUEUE = "limited";
  static final int LIMIT = 2;
  static final int PER_PARTITION = 1;

  private LimitProcessMain() {}

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    String worker = args.required("worker");
    boolean partitioned = Boolean.parseBoolean(args.get("partitioned", "false"));
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch closing = new CountDownLatch(1);
    Handler handler =
        job -> {
          String key = job.lease().key();
          String tag = partitioned ? key.substring(0, key.indexOf('/')) + " " : "";
          System.out.println("start " + tag + System.nanoTime());
          if (go.getCount() > 0) {
            System.out.println("held " + worker);
            go.await();
          }
          // 20 ms of work, so that jobs overlap and a leaked lease would show; a closing process
          // does not wait it out.
          closing.await(20, TimeUnit.MILLISECONDS);
          System.out.println("end " + tag + System.nanoTime());
          job.completeWith(tx -> ChildStore.run(tx, job.lease().key(), worker));
        };
    try (ChildStore store = ChildStore.of(args, 8);
        OnceOnly once =
            (partitioned
                    ? store.builder().concurrencyLimitPerPartition(QUEUE, PER_PARTITION)
                    : store.builder().concurrencyLimit(QUEUE, LIMIT))
                .build();
        Worker gated = worker(once, handler, 1)) {
      System.out.println("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      if (!"go".equals(in.readLine())) {
        return; // stdin closed before the gate opened
      }
      go.countDown();
      try (Worker wide = worker(once, handler, 4)) {
        ChildStore.untilStdinCloses();
        closing.countDown(); // the handlers in flight finish at once, before the workers close
      }
    }
  }

  /** A worker of {@code threads}; one thread claims one job at a time (no prefetch). */
  private static Worker worker(OnceOnly once, Handler handler, int threads) {
    Worker.Builder builder = Worker.builder(once.queue(), QUEUE, handler);
    if (threads == 1) {
      builder.prefetch(0); // a job claimed but waiting would hold the limit's other lease
    }
    return builder
        .threads(threads)
        .idleBackoff(Duration.ofMillis(1), Duration.ofMillis(10))
        .build()
        .start();
  }
}
