package dev.onceonly.race;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.CatchUp;
import dev.onceonly.queue.ScheduleSpec;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildArgs;
import dev.onceonly.testing.FileClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One instance for {@link ScheduleProcessesTest}: registers the schedule {@code tick} (every
 * second, every missed slot caught up) as every instance of an application would at startup, and
 * runs a worker on its queue whose handler commits a {@code runs} row with the acknowledgement. The
 * clock is the test's {@link FileClock}.
 *
 * <p>Arguments ({@code name=value}): {@code file} (a SQLite file) or {@code url} (PostgreSQL),
 * {@code clock} (the clock's file), {@code worker}. Prints {@code ready}, then {@code runs n=...}
 * every 100 runs it made, until stdin closes.
 */
public final class ScheduleProcessMain {
  static final String QUEUE = "ticks";
  static final ScheduleSpec EVERY_SECOND =
      ScheduleSpec.fixedRate(Duration.ofSeconds(1)).catchUp(CatchUp.all(CatchUp.All.MAX));

  private ScheduleProcessMain() {}

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    String worker = args.required("worker");
    FileClock clock = FileClock.open(Path.of(args.required("clock")));
    AtomicLong made = new AtomicLong();
    try (ChildStore store = ChildStore.of(args, 5);
        OnceOnly once = store.builder().clock(clock).build()) {
      once.schedules().register("tick", QUEUE, EVERY_SECOND, "tick");
      try (Worker w =
          Worker.builder(
                  once.queue(),
                  QUEUE,
                  job ->
                      job.completeWith(
                          tx -> {
                            ChildStore.run(tx, job.lease().key(), worker);
                            if (made.incrementAndGet() % 100 == 0) {
                              System.out.println("runs n=" + made.get());
                            }
                            return null;
                          }))
              .threads(2)
              .lease(Duration.ofSeconds(20))
              .idleBackoff(Duration.ofMillis(1), Duration.ofMillis(10))
              .build()
              .start()) {
        System.out.println("ready");
        ChildStore.untilStdinCloses();
      }
    }
  }
}
