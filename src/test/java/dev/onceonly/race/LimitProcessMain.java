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
 * <p>Arguments ({@code name=value}): {@code file} (a SQLite file) or {@code url} (PostgreSQL),
 * {@code worker}. Prints {@code ready}, runs until stdin closes.
 */
public final class LimitProcessMain {
  static final String QUEUE = "limited";
  static final int LIMIT = 2;

  private LimitProcessMain() {}

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    String worker = args.required("worker");
    try (ChildStore store = ChildStore.of(args, 6);
        OnceOnly once = store.builder().concurrencyLimit(QUEUE, LIMIT).build();
        Worker w =
            Worker.builder(
                    once.queue(),
                    QUEUE,
                    job -> {
                      System.out.println("start " + System.nanoTime());
                      Thread.sleep(20);
                      System.out.println("end " + System.nanoTime());
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
