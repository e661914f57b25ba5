package dev.onceonly.race;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildArgs;
import java.time.Duration;

/**
 * One instance for {@link LimitProcessesTest}: a worker of four threads on the queue {@code
 * limited}, declared with a concurrency limit of 2 as every instance of the application does. Its
 * handler prints {@code start <nanoTime>} and {@code end <nanoTime>} around 20 ms of work (the
 * monotonic clock is the machine's, shared by the processes) and commits a {@code runs} row with
 * the acknowledgement.
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
    try (ChildStore store = ChildStore.of(args, 6);
        OnceOnly once =
            (partitioned
                    ? store.builder().concurrencyLimitPerPartition(QUEUE, PER_PARTITION)
                    : store.builder().concurrencyLimit(QUEUE, LIMIT))
                .build();
        Worker w =
            Worker.builder(
                    once.queue(),
                    QUEUE,
                    job -> {
                      String key = job.lease().key();
                      String tag = partitioned ? key.substring(0, key.indexOf('/')) + " " : "";
                      System.out.println("start " + tag + System.nanoTime());
                      Thread.sleep(20);
                      System.out.println("end " + tag + System.nanoTime());
                      job.completeWith(tx -> ChildStore.run(tx, job.lease().key(), worker));
                    })
                .threads(4)
                .idleBackoff(Duration.ofMillis(1), Duration.ofMillis(10))
                .build()
                .start()) {
      System.out.println("ready");
      ChildStore.untilStdinCloses();
    }
  }
}
