package dev.onceonly.bench;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.QueueResult;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Part 2 of {@link GrowthBenchMain}: claims a second ({@code receive(queue, batch, lease)} then
 * {@code ackAll} of what came, from {@code claimThreads} threads) with a backlog of each level
 * waiting, in a queue of no partitions ({@value #FLAT}) and in one whose messages are spread over
 * {@code partitions} partitions under {@code concurrencyLimitPerPartition(queue, 1)} ({@value
 * #PARTED}), both in the same store. So that the backlog stays near its level while measured, a
 * point is several rounds: each round fills the queue up to its level (not timed) and claims until
 * half of it is gone or the point's seconds are used up; the rate is the claims of all rounds over
 * their timed seconds.
 */
final class GrowthClaims {
  private GrowthClaims() {}

  static final String FLAT = "orders";
  static final String PARTED = "tenants";

  /** One measured point: a queue at a level. */
  record Point(
      String queue,
      long level,
      GrowthRun.Measured measured,
      int rounds,
      double seedSeconds,
      long diskBytes,
      String load) {}

  /** The next message number of each queue, so that every seeded key is new. */
  static final class Backlog {
    long flat;
    long parted;
  }

  /** Runs the points on {@code store} through {@code once}, which declares the partition limit. */
  static List<Point> run(GrowthBenchMain.Settings s, GrowthStore store, OnceOnly once, Backlog next)
      throws Exception {
    List<Point> points = new ArrayList<>();
    if (s.warmup() > 0) {
      fill(store, FLAT, 2_000, next, s.partitions());
      GrowthRun.Measured w = measure(once.queue(), FLAT, s, 1_000, s.warmup());
      System.out.printf(Locale.ROOT, "%s claims warm-up: %,.0f/s%n", store.title(), w.rate());
    }
    for (long level : s.claimLevels()) {
      for (String queue : List.of(FLAT, PARTED)) {
        long t0 = System.nanoTime();
        fill(store, queue, level, next, s.partitions());
        store.analyze();
        double seedSeconds = (System.nanoTime() - t0) / 1e9;
        GrowthRun.Measured total = GrowthRun.NONE;
        int rounds = 0;
        while (total.seconds() < s.seconds()) {
          if (rounds > 0) {
            fill(store, queue, level, next, s.partitions());
          }
          GrowthRun.Measured m =
              measure(
                  once.queue(), queue, s, Math.max(1, level / 2), s.seconds() - total.seconds());
          GrowthReceipts.check(m.failed() == 0, "a claimer failed");
          total = total.plus(m);
          rounds++;
        }
        Point p =
            new Point(
                queue,
                level,
                total,
                rounds,
                seedSeconds,
                store.diskBytes(),
                WorkerBenchMain.loadAverage());
        System.out.println(store.title() + " claims " + describe(p));
        points.add(p);
      }
    }
    return points;
  }

  /**
   * The claim's window of a queue under a limit per partition (a copy of the library's text, the
   * parameters inlined: the queue, now, a limit of 1, a batch of {@code batch}).
   */
  static String partitionWindow(GrowthStore store, int batch) {
    String m = GrowthStore.PREFIX + "messages";
    String now = GrowthPurge.now(store);
    String q = "'" + PARTED + "'";
    return "SELECT x.id, x.partition_key FROM "
        + m
        + " x WHERE x.queue = "
        + q
        + " AND NOT EXISTS (SELECT 1 FROM "
        + GrowthStore.PREFIX
        + "queue_pauses z WHERE z.queue = x.queue) AND "
        + (store instanceof GrowthStore.Sqlite ? "+" : "")
        + "x.deliver_at <= "
        + now
        + " AND (x.partition_key IS NULL OR x.partition_key NOT IN (SELECT b.partition_key FROM "
        + m
        + " b WHERE b.queue = "
        + q
        + " AND b.leased = 1 AND b.deliver_at > "
        + now
        + " AND b.partition_key IS NOT NULL GROUP BY b.partition_key HAVING COUNT(*) >= 1))"
        + " ORDER BY x.priority DESC, x.deliver_at, x.id LIMIT "
        + batch;
  }

  /**
   * The due window of a claim of {@value #FLAT} at its one priority (the inner seek of the
   * library's claim, the parameters inlined), and, on PostgreSQL, the dead rows its table holds.
   */
  static List<String> flatWindow(GrowthStore store, int batch) {
    String sql =
        "SELECT id FROM "
            + GrowthStore.PREFIX
            + "messages WHERE queue = '"
            + FLAT
            + "' AND priority = 0 AND deliver_at <= "
            + GrowthPurge.now(store)
            + " ORDER BY deliver_at, id LIMIT "
            + batch;
    return store instanceof GrowthStore.Sqlite
        ? List.of(sql)
        : List.of(
            sql,
            "SELECT n_live_tup, n_dead_tup, last_autovacuum FROM pg_stat_user_tables"
                + " WHERE relname = '"
                + GrowthStore.PREFIX
                + "messages'");
  }

  /** Inserts due messages into {@code queue} until it holds {@code level}. */
  static void fill(GrowthStore store, String queue, long level, Backlog next, int partitions)
      throws SQLException {
    long waiting =
        store.count(
            "SELECT count(*) FROM "
                + GrowthStore.PREFIX
                + "messages WHERE queue = '"
                + queue
                + "'");
    if (waiting >= level) {
      return;
    }
    boolean flat = queue.equals(FLAT);
    long from = flat ? next.flat : next.parted;
    long to = from + level - waiting;
    store.messages(queue, from, to, flat ? 0 : partitions, false);
    if (flat) {
      next.flat = to;
    } else {
      next.parted = to;
    }
  }

  private static GrowthRun.Measured measure(
      JobQueue q, String queue, GrowthBenchMain.Settings s, long max, double seconds)
      throws InterruptedException {
    Duration lease = Duration.ofMinutes(5);
    return GrowthRun.run(
        s.claimThreads(),
        seconds,
        max,
        t ->
            () -> {
              List<Delivery> got = q.receive(queue, s.batch(), lease);
              if (got.isEmpty()) {
                return 0;
              }
              List<Lease> leases = new ArrayList<>(got.size());
              for (Delivery d : got) {
                leases.add(d.lease());
              }
              for (QueueResult r : q.ackAll(leases)) {
                if (!(r instanceof QueueResult.Completed)) {
                  throw new IllegalStateException("ack answered " + r);
                }
              }
              return got.size();
            });
  }

  static String describe(Point p) {
    return String.format(
        Locale.ROOT,
        "%s at %,d: %,.0f claims/s (%,d in %.1f s, %d rounds), seeded in %.1f s, %s, load %s",
        p.queue(),
        p.level(),
        p.measured().rate(),
        p.measured().count(),
        p.measured().seconds(),
        p.rounds(),
        p.seedSeconds(),
        GrowthBenchMain.bytes(p.diskBytes()),
        p.load());
  }

  static final String HEADER =
      "| database | queue | messages waiting | claims/s | / 1st level | claims counted (rounds)"
          + " | seeding before | store on disk | load avg |\n"
          + "|---|---|---:|---:|---:|---:|---:|---:|---|\n";

  /** The Markdown rows of one database, each queue against its own smallest level. */
  static void table(StringBuilder b, String title, List<Point> points, int partitions) {
    for (Point p : points) {
      double base =
          points.stream()
              .filter(x -> x.queue().equals(p.queue()))
              .findFirst()
              .orElseThrow()
              .measured()
              .rate();
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %,d | %,.0f | %.2f | %,d in %.1f s (%d) | %.1f s | %s | %s |%n",
              title,
              p.queue().equals(FLAT) ? "one queue" : partitions + " partitions, limit 1 each",
              p.level(),
              p.measured().rate(),
              p.measured().rate() / base,
              p.measured().count(),
              p.measured().seconds(),
              p.rounds(),
              p.seedSeconds(),
              GrowthBenchMain.bytes(p.diskBytes()),
              p.load()));
    }
  }
}
