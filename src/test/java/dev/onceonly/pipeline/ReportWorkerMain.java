package dev.onceonly.pipeline;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.cli.demo.ReportHandler;
import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildArgs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A report worker in a process of its own, for tests that kill it: a {@link Worker} with a {@link
 * ReportHandler} on {@link ReportPipeline#QUEUE}, which finishes a few deliveries and then stalls
 * holding its leases until it is killed.
 *
 * <p>Arguments, as {@code name=value}: {@code file} (the database), {@code threads} (worker
 * threads, default 3), {@code leaseMs} (default 2,000), {@code normal} (deliveries handled in full
 * before stalling, default 3) and {@code hold} (deliveries after those that the handler keeps
 * without working on them, their leases renewed, default {@code threads - 1}). Every later delivery
 * that reaches its effect stops inside it, after inserting its report row and before the commit.
 *
 * <p>It opens the store, prints {@code ready pid=...}, waits for {@code go} on stdin, starts the
 * worker and prints {@code claimed}, {@code done}, {@code holding} and {@code effect} lines, each
 * with {@code key=<message key> id=<message id> attempt=<n>}. It exits when its stdin closes, so it
 * does not outlive a test that died.
 */
public final class ReportWorkerMain {
  private final int normal;
  private final int hold;
  private final AtomicInteger claims = new AtomicInteger();
  private final Set<Long> stalling = ConcurrentHashMap.newKeySet();
  private final CountDownLatch never = new CountDownLatch(1);

  private ReportWorkerMain(int normal, int hold) {
    this.normal = normal;
    this.hold = hold;
  }

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    Path file = Path.of(args.required("file"));
    int threads = Integer.parseInt(args.get("threads", "3"));
    Duration lease = Duration.ofMillis(Long.parseLong(args.get("leaseMs", "2000")));
    ReportWorkerMain main =
        new ReportWorkerMain(
            Integer.parseInt(args.get("normal", "3")),
            Integer.parseInt(args.get("hold", String.valueOf(threads - 1))));
    try (OnceOnly once = ReportPipeline.open(file)) {
      print("ready pid=" + ProcessHandle.current().pid());
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String signal = in.readLine();
      if (!"go".equals(signal)) {
        System.err.println("expected 'go' on stdin, got " + signal);
        System.exit(2);
      }
      Worker.builder(
              once.queue(),
              ReportPipeline.QUEUE,
              new ReportHandler(once, ReportPipeline.SCOPE, main.listener()))
          .threads(threads)
          .lease(lease)
          .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(100))
          .build()
          .start();
      try {
        while (in.readLine() != null) {
          // nothing more is sent; the end of stdin means the test is gone
        }
      } catch (IOException e) {
        // the same as the end of stdin
      }
      Runtime.getRuntime().halt(3); // no graceful close: it would wait for the stalled handlers
    }
  }

  private ReportHandler.Listener listener() {
    return new ReportHandler.Listener() {
      @Override
      public void claimed(Delivery d) {
        int n = claims.incrementAndGet();
        print("claimed " + describe(d));
        if (n > normal + hold) {
          stalling.add(d.lease().messageId());
        } else if (n > normal) {
          print("holding " + describe(d));
          stall();
        }
      }

      @Override
      public void effect(Delivery d, IntentKey key) {
        if (stalling.contains(d.lease().messageId())) {
          print("effect " + describe(d));
          stall(); // inside the write transaction: the row is inserted, nothing is committed
        }
      }

      @Override
      public void finished(Delivery d, ReportHandler.Result result, String detail) {
        print("done " + describe(d) + " result=" + result);
      }
    };
  }

  private void stall() {
    try {
      never.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stalled", e);
    }
  }

  private static String describe(Delivery d) {
    return "key=" + d.key() + " id=" + d.lease().messageId() + " attempt=" + d.attempt();
  }

  private static void print(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
