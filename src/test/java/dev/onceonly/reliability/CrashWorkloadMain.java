package dev.onceonly.reliability;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildArgs;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.IntentSteps;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The workload of a crash run, in a process of its own: a reconcile pass, a producer that registers
 * intents and then publishes them (two transactions, as the report workshop does, so that a crash
 * between them leaves an intent only the reconciler can rescue), and a {@link Worker} whose handler
 * runs each intent's effect through a receipts step inside {@code job.completeWith}, so that
 * effect, receipt and acknowledgement commit together.
 *
 * <p>Arguments, as {@code name=value}: the target's ({@link CrashTarget#fromArgs}), {@code first}
 * and {@code intents} (the producer registers keys {@code c-<first>} onward), {@code clockOffsetMs}
 * (the process's clock runs this far ahead of the system clock, so that leases held by earlier,
 * killed processes have run out without anyone waiting), {@code pauseAt} (the number of the
 * progress point at which every thread parks until the process is killed; 0, the default, never)
 * and {@code drain=true} (produce, wait until no intent is left without a receipt, print {@code
 * drained} and exit).
 *
 * <p>It prints {@code ready}, then one {@code point <n> <stage> <key>} line per progress point:
 * {@code reconciled}, {@code registered}, {@code published}, {@code claimed}, {@code effect} (the
 * effect's row written, nothing committed) and {@code completed}. At the pause it prints {@code
 * parked <n>}. It halts when its stdin closes, so it never outlives the parent.
 */
public final class CrashWorkloadMain {
  static final String SCOPE = "crash";
  static final String QUEUE = "crash";
  static final String OPERATION = "apply";
  static final String EFFECTS_DDL =
      "CREATE TABLE IF NOT EXISTS crash_effects"
          + " (scope TEXT NOT NULL, intent_key TEXT NOT NULL, worker TEXT NOT NULL, n INTEGER)";

  private final String worker;
  private final long pauseAt;
  private final CountDownLatch never = new CountDownLatch(1);
  private long points;

  private CrashWorkloadMain(String worker, long pauseAt) {
    this.worker = worker;
    this.pauseAt = pauseAt;
  }

  /** The intent of index {@code n}: its key and its arguments. */
  static IntentKey key(int n) {
    return IntentKey.of(SCOPE, "c-" + n);
  }

  static Map<String, Object> arguments(int n) {
    return Map.of("n", n, "note", "crash workload");
  }

  /** The queue view the workload uses: crashes must not dead-letter a message. */
  static JobQueue queue(OnceOnly once) {
    return once.queue(
        RetryPolicy.builder().maxAttempts(100_000).maxElapsed(Duration.ofDays(30)).build());
  }

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    CrashWorkloadMain main =
        new CrashWorkloadMain(args.get("worker", "w"), Long.parseLong(args.get("pauseAt", "0")));
    int first = Integer.parseInt(args.required("first"));
    int intents = Integer.parseInt(args.required("intents"));
    Duration offset = Duration.ofMillis(Long.parseLong(args.get("clockOffsetMs", "0")));
    InstantSource clock = InstantSource.offset(Clock.systemUTC(), offset);
    watchParent();
    try (CrashTarget target = CrashTarget.fromArgs(args);
        OnceOnly once = target.open(clock)) {
      createEffectTable(target);
      print("ready");
      JobQueue queue = queue(once);
      Reconciler.of(once.intents(), IntentMessage.publisher(queue, QUEUE)).reconcile();
      main.point("reconciled", "-");
      try (Worker w = main.worker(once, queue).start()) {
        for (int n = first; n < first + intents; n++) {
          once.intents().register(key(n), OPERATION, arguments(n));
          main.point("registered", key(n).key());
          IntentMessage.publisher(queue, QUEUE).publish(once.intents().find(key(n)).orElseThrow());
          main.point("published", key(n).key());
        }
        if (Boolean.parseBoolean(args.get("drain", "false"))) {
          awaitNothingPending(once);
          print("drained");
          return;
        }
        main.never.await();
      }
    }
  }

  private Worker worker(OnceOnly once, JobQueue queue) {
    return Worker.builder(
            queue,
            QUEUE,
            job -> {
              IntentMessage m = IntentMessage.decode(job.payload());
              int n = m.arguments().get("n").asInt();
              point("claimed", m.key().key());
              job.completeWith(
                  tx ->
                      IntentSteps.execute(
                          once,
                          tx,
                          m,
                          Integer.class,
                          effectTx -> {
                            insertEffect(effectTx, m.key(), n);
                            point("effect", m.key().key());
                            return n;
                          }));
              point("completed", m.key().key());
            })
        .threads(2)
        .lease(Duration.ofSeconds(5))
        .idleBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
        .build();
  }

  /** Reports one progress point; at the chosen one, and at every later one, parks for good. */
  private void point(String stage, String key) throws InterruptedException {
    long n;
    synchronized (this) {
      n = ++points;
      print("point " + n + " " + stage + " " + key);
      if (n == pauseAt) {
        print("parked " + n);
      }
    }
    if (pauseAt > 0 && n >= pauseAt) {
      never.await();
    }
  }

  private void insertEffect(Connection tx, IntentKey key, int n) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement(
            "INSERT INTO crash_effects (scope, intent_key, worker, n) VALUES (?, ?, ?, ?)")) {
      ps.setString(1, key.scope());
      ps.setString(2, key.key());
      ps.setString(3, worker);
      ps.setInt(4, n);
      ps.executeUpdate();
    }
  }

  static void createEffectTable(CrashTarget target) throws SQLException {
    try (Connection c = target.connect();
        Statement s = c.createStatement()) {
      s.execute(EFFECTS_DDL);
    }
  }

  private static void awaitNothingPending(OnceOnly once) {
    Eventually.await(
        Duration.ofMinutes(5), "no intent pending", () -> once.intents().pending(1).isEmpty());
  }

  private static void print(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /** Halts this process when stdin closes: the parent is gone or done with it. */
  private static void watchParent() {
    Thread t =
        new Thread(
            () -> {
              BufferedReader in =
                  new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
              try {
                while (in.readLine() != null) {
                  // nothing is sent; only the end matters
                }
              } catch (IOException e) {
                // the same as the end of input
              }
              Runtime.getRuntime().halt(3);
            },
            "parent-watch");
    t.setDaemon(true);
    t.start();
  }
}
