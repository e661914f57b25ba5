package dev.onceonly.bench;

import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.queue.Worker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Parts 3 and 4 of {@link GrowthBenchMain}: the dashboard's overview page (over HTTP, the servlet
 * on Jetty as {@link DashboardBenchMain} serves it) and {@code Maintenance.status()} on a store of
 * many messages, the median of several calls; and a purge of expired receipts ({@link
 * Maintenance#purgeReceipts}, batches of {@value #PURGE_BATCH} as the command-line {@code purge}
 * runs it) with a {@link Worker} draining a queue beside it: its completions a second before and
 * during the purge, and the longest time between two completions while the purge ran.
 */
final class GrowthPurge {
  private GrowthPurge() {}

  static final int PURGE_BATCH = 1_000;
  static final String BULK = "bulk";

  /** The times of the overview and of the status on one store. */
  record Reads(
      String when, long messages, long receipts, double overviewMs, double statusMs, String load) {}

  /** What the purge and the Worker beside it did. */
  record Purge(
      long receipts,
      long tombstoned,
      double seconds,
      double longestBatchMs,
      double before,
      double during,
      double longestGapMs,
      double longestGapBeforeMs,
      double seedSeconds,
      String stalls,
      String load) {}

  /** Times the overview page and the status {@code rounds} times each, alternating. */
  static Reads reads(OnceOnly once, GrowthStore store, String when, int rounds) throws Exception {
    long messages = store.count("SELECT count(*) FROM " + GrowthStore.PREFIX + "messages");
    long receipts = store.count("SELECT count(*) FROM " + GrowthStore.PREFIX + "receipts");
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.addServlet(
        new ServletHolder(DashboardServlet.builder(once).readOnly(true).build()), "/ops/*");
    server.setHandler(context);
    server.start();
    try {
      HttpClient client = HttpClient.newHttpClient();
      URI overview = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/ops/");
      List<Double> page = new ArrayList<>();
      List<Double> status = new ArrayList<>();
      page(client, overview); // warm-up of both
      once.maintenance().status();
      for (int r = 0; r < rounds; r++) {
        page.add(page(client, overview));
        long t = System.nanoTime();
        once.maintenance().status();
        status.add((System.nanoTime() - t) / 1e6);
        System.out.printf(
            Locale.ROOT,
            "%s %s round %d: overview %.1f ms, status %.1f ms, load %s%n",
            store.title(),
            when,
            r + 1,
            page.get(r),
            status.get(r),
            WorkerBenchMain.loadAverage());
      }
      // The overview's other reads, each timed once: where its time goes beside the status.
      long t1 = System.nanoTime();
      once.maintenance().queues("", 0, 10);
      long t2 = System.nanoTime();
      once.maintenance().deadLetteredPerMinute(60);
      long t3 = System.nanoTime();
      System.out.printf(
          Locale.ROOT,
          "%s %s: the overview's queues(\"\", 0, 10) %.1f ms, deadLetteredPerMinute(60) %.1f"
              + " ms%n",
          store.title(),
          when,
          (t2 - t1) / 1e6,
          (t3 - t2) / 1e6);
      return new Reads(
          when, messages, receipts, median(page), median(status), WorkerBenchMain.loadAverage());
    } finally {
      server.stop();
    }
  }

  private static double page(HttpClient client, URI uri) throws Exception {
    long t = System.nanoTime();
    HttpResponse<String> r =
        client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    double ms = (System.nanoTime() - t) / 1e6;
    if (r.statusCode() != 200 || !r.body().contains("Overview")) {
      throw new IllegalStateException(uri + " answered " + r.statusCode());
    }
    return ms;
  }

  static double median(List<Double> xs) {
    List<Double> sorted = new ArrayList<>(xs);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  /**
   * Seeds {@code n} expired receipts, starts a Worker of {@code threads} on {@value #BULK} (a
   * handler that returns at once, so each job is its claim and its acknowledgement), counts its
   * completions for {@code seconds}, then purges in this thread while a monitor polls the Worker's
   * count every millisecond and keeps the longest time it stood still.
   */
  static Purge purge(OnceOnly once, GrowthStore store, long n, int threads, int seconds)
      throws Exception {
    long t0 = System.nanoTime();
    store.receipts("expired", 0, n, true);
    store.analyze();
    double seedSeconds = (System.nanoTime() - t0) / 1e9;
    long receipts = store.count("SELECT count(*) FROM " + GrowthStore.PREFIX + "receipts");
    AtomicLong longestGap = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    ConcurrentLinkedQueue<long[]> stalls = new ConcurrentLinkedQueue<>();
    try (Worker worker = Worker.builder(once.queue(), BULK, job -> {}).threads(threads).build()) {
      Thread monitor =
          new Thread(
              () -> {
                long last = worker.completed();
                long since = System.nanoTime();
                while (!stop.get()) {
                  long c = worker.completed();
                  long now = System.nanoTime();
                  if (c != last) {
                    if (now - since >= 100_000_000L) {
                      stalls.add(new long[] {since, now - since});
                    }
                    last = c;
                    since = now;
                  } else {
                    longestGap.accumulateAndGet(now - since, Math::max);
                  }
                  try {
                    Thread.sleep(1);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
                long now = System.nanoTime();
                if (now - since >= 100_000_000L) { // a stall that lasts to the end of the purge
                  stalls.add(new long[] {since, now - since});
                }
              },
              "growth-monitor");
      worker.start();
      waitFor(() -> worker.completed() > 0);
      monitor.start();
      long c0 = worker.completed();
      long b0 = System.nanoTime();
      Thread.sleep(seconds * 1000L);
      long c1 = worker.completed();
      long b1 = System.nanoTime();
      double gapBefore = longestGap.getAndSet(0) / 1e6;
      AtomicLong lastBatch = new AtomicLong(System.nanoTime());
      AtomicLong longestBatch = new AtomicLong();
      Maintenance.ReceiptPurge done =
          once.maintenance()
              .purgeReceipts(
                  PURGE_BATCH,
                  total -> {
                    long now = System.nanoTime();
                    longestBatch.accumulateAndGet(now - lastBatch.getAndSet(now), Math::max);
                  });
      long c2 = worker.completed();
      long b2 = System.nanoTime();
      stop.set(true);
      monitor.join();
      StringBuilder during = new StringBuilder();
      for (long[] st : stalls) {
        if (st[0] + st[1] > b1 && st[0] < b2) {
          during.append(
              String.format(
                  Locale.ROOT,
                  "%s+%.1f s: %.0f ms",
                  during.isEmpty() ? "" : "; ",
                  (st[0] - b1) / 1e9,
                  st[1] / 1e6));
        }
      }
      System.out.printf(
          Locale.ROOT,
          "%s purge: stalls of 100 ms or more during it: [%s]; the Worker retried %d, lost %d"
              + " leases%n",
          store.title(),
          during,
          worker.retried(),
          worker.leasesLost());
      GrowthReceipts.check(done.tombstoned() == n, "tombstoned " + done.tombstoned() + " of " + n);
      long live =
          store.count(
              "SELECT count(*) FROM "
                  + GrowthStore.PREFIX
                  + "receipts WHERE scope = 'expired' AND result IS NOT NULL");
      GrowthReceipts.check(live == 0, "expired receipts left with a result: " + live);
      return new Purge(
          receipts,
          done.tombstoned(),
          (b2 - b1) / 1e9,
          longestBatch.get() / 1e6,
          (c1 - c0) / ((b1 - b0) / 1e9),
          (c2 - c1) / ((b2 - b1) / 1e9),
          longestGap.get() / 1e6,
          gapBefore,
          seedSeconds,
          during.isEmpty() ? "none" : during.toString(),
          WorkerBenchMain.loadAverage());
    }
  }

  private static void waitFor(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the Worker completed no job in 60 s");
      }
      Thread.sleep(1);
    }
  }

  /** The current time as an SQL literal of {@code store}'s timestamps. */
  static String now(GrowthStore store) {
    return store instanceof GrowthStore.Sqlite
        ? Long.toString(System.currentTimeMillis())
        : "now()";
  }

  /** The status's counting statements, copies of the library's text with the time inlined. */
  static List<String> statusStatements(GrowthStore store) {
    String p = GrowthStore.PREFIX;
    String now = now(store);
    return List.of(
        "SELECT queue, SUM(CASE WHEN deliver_at <= "
            + now
            + " THEN 1 ELSE 0 END), COUNT(*) FROM "
            + p
            + "messages GROUP BY queue ORDER BY queue",
        "SELECT queue, COUNT(*) FROM "
            + p
            + "messages WHERE leased = 1 AND deliver_at > "
            + now
            + " GROUP BY queue",
        "SELECT COALESCE(SUM(CASE WHEN result IS NOT NULL AND expires_at > "
            + now
            + " THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN result IS NOT NULL AND"
            + " expires_at <= "
            + now
            + " THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN result IS NULL THEN 1 ELSE 0"
            + " END), 0) FROM "
            + p
            + "receipts");
  }

  /**
   * The first statement of the overview's Queues table ({@code Maintenance.queues("", 0, 10)}): how
   * many queues there are, a copy of the library's {@code countQueues}.
   */
  static String countQueues() {
    String p = GrowthStore.PREFIX;
    return "SELECT COUNT(*) FROM (SELECT queue FROM "
        + p
        + "messages UNION SELECT queue FROM "
        + p
        + "dead_letters) q";
  }

  /** Prints the plan of each of {@code sqls} on {@code store}, with the time it took, to out. */
  static void explain(GrowthStore store, String when, List<String> sqls, StringBuilder out)
      throws Exception {
    try (Connection c = store.raw()) {
      for (String sql : sqls) {
        long t = System.nanoTime();
        List<String> plan = store.explain(c, sql);
        out.append(
            String.format(
                Locale.ROOT,
                "%n%s, %s (EXPLAIN taken in %.0f ms):%n%n```%n%s%n%n",
                store.title(),
                when,
                (System.nanoTime() - t) / 1e6,
                sql));
        for (String line : plan) {
          out.append(line).append('\n');
        }
        out.append("```\n");
      }
    }
  }
}
