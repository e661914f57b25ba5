package dev.onceonly.race;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.Effect;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildArgs;
import dev.onceonly.testing.EmbeddedPg;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One application instance for {@link MultiInstanceContract}: a HikariCP pool of its own on the
 * shared PostgreSQL or MariaDB database, the library's default clock (the server's), a producer
 * that sends every key {@code k-0 .. k-<keys-1>} in an order of its own (so the instances' keys
 * overlap), and a worker whose handler makes the effect through a receipt joined to the
 * acknowledgement: one {@code effects} row per key, in the transaction that acknowledges.
 *
 * <p>Arguments ({@code name=value}): {@code url}, {@code worker}, {@code keys}, {@code threads},
 * {@code leaseMs}, {@code complete} ({@code with}, the default: {@code job.completeWith}, or {@code
 * later}: {@code job.completeLater}, the worker's batched completion). Prints {@code ready}, then
 * {@code sent worker=... n=...} every 100 sends and {@code done worker=... n=...} every 50 effects
 * it made, and runs until stdin closes (the parent closed it or died).
 */
public final class PostgresQueueWorkerMain {
  static final String QUEUE = "orders";
  static final String SCOPE = "orders";

  private PostgresQueueWorkerMain() {}

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    String worker = args.required("worker");
    int keys = Integer.parseInt(args.required("keys"));
    boolean later = args.get("complete", "with").equals("later");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args.required("url"));
    if (args.required("url").startsWith("jdbc:postgresql:")) {
      config.setDataSourceProperties(EmbeddedPg.properties());
      config.setConnectionInitSql(EmbeddedPg.SET_TIME_ZONE);
    }
    config.setMaximumPoolSize(Integer.parseInt(args.get("threads", "3")) + 2);
    config.setPoolName("instance-" + worker);
    AtomicLong made = new AtomicLong();
    try (HikariDataSource pool = new HikariDataSource(config);
        OnceOnly once = OnceOnly.builder().dataSource(pool).build();
        Worker w =
            Worker.builder(
                    once.queue(),
                    QUEUE,
                    job -> {
                      String key = job.delivery().key();
                      Effect<String, SQLException> work =
                          tx ->
                              once.receipts()
                                  .execute(
                                      tx,
                                      IntentKey.of(SCOPE, key),
                                      "ship",
                                      Map.of("order", key),
                                      String.class,
                                      c -> effect(c, key, worker, made))
                                  .toString();
                      if (later) {
                        job.completeLater(work);
                      } else {
                        job.completeWith(work);
                      }
                    })
                .threads(Integer.parseInt(args.get("threads", "3")))
                .lease(Duration.ofMillis(Long.parseLong(args.get("leaseMs", "2000"))))
                .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(100))
                .build()) {
      System.out.println("ready worker=" + worker + " pid=" + ProcessHandle.current().pid());
      System.out.flush();
      w.start();
      List<Integer> order = new ArrayList<>();
      for (int i = 0; i < keys; i++) {
        order.add(i);
      }
      Collections.shuffle(order, new Random(worker.hashCode()));
      int sent = 0;
      for (int i : order) {
        once.queue().send(Message.of(QUEUE, "k-" + i, Map.of("order", "k-" + i)));
        if (++sent % 100 == 0) {
          System.out.println("sent worker=" + worker + " n=" + sent);
        }
      }
      System.out.println("sent-all worker=" + worker);
      System.out.flush();
      awaitEndOfInput();
    }
  }

  private static String effect(java.sql.Connection c, String key, String worker, AtomicLong made)
      throws java.sql.SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO effects (message_key, holder) VALUES (?, ?)")) {
      ps.setString(1, key);
      ps.setString(2, worker);
      ps.executeUpdate();
    }
    long n = made.incrementAndGet();
    if (n % 50 == 0) {
      System.out.println("done worker=" + worker + " n=" + n);
      System.out.flush();
    }
    return worker;
  }

  private static void awaitEndOfInput() throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    while (in.readLine() != null) {
      // only the end matters
    }
  }
}
