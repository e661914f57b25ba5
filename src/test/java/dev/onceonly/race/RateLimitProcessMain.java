package dev.onceonly.race;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.RateLimit;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildArgs;
import java.time.Duration;

/**
 * One instance for {@link RateLimitProcessesTest}: a worker of four threads on the queue {@code
 * paced}, declared with a rate limit of {@value #CLAIMS} claims per {@value #WINDOW_MILLIS} ms (and
 * a concurrency limit of {@value #CONCURRENCY}) as every instance of the application does. Its
 * handler prints {@code claimed <epochMillis>}, the claim's time on the store's clock (the lease's
 * end less its length; the lease is long, so never renewed before), and commits a {@code runs} row
 * with the acknowledgement.
 *
 * <p>Arguments ({@code name=value}): {@code file} (a SQLite file) or {@code url} (PostgreSQL),
 * {@code worker}. Prints {@code ready}, runs until stdin closes.
 */
public final class RateLimitProcessMain {
  static final String QUEUE = "paced";
  static final int CLAIMS = 10;
  static final long WINDOW_MILLIS = 500;
  static final int CONCURRENCY = 6;
  static final Duration LEASE = Duration.ofMinutes(2);

  private RateLimitProcessMain() {}

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    String worker = args.required("worker");
    try (ChildStore store = ChildStore.of(args, 8);
        OnceOnly once =
            store
                .builder()
                .rateLimit(QUEUE, RateLimit.of(CLAIMS, Duration.ofMillis(WINDOW_MILLIS)))
                .concurrencyLimit(QUEUE, CONCURRENCY)
                .build();
        Worker w =
            Worker.builder(
                    once.queue(),
                    QUEUE,
                    job -> {
                      long claimed = job.lease().expiresAt().minus(LEASE).toEpochMilli();
                      System.out.println("claimed " + job.lease().key() + " " + claimed);
                      job.completeWith(tx -> ChildStore.run(tx, job.lease().key(), worker));
                    })
                .threads(4)
                .lease(LEASE)
                .build()
                .start()) {
      System.out.println("ready");
      ChildStore.untilStdinCloses();
    }
  }
}
