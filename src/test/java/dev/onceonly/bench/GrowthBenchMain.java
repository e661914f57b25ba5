package dev.onceonly.bench;

import dev.onceonly.OnceOnly;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How the cost grows with the data: on a SQLite file (WAL, {@code synchronous=FULL}, opened as
 * {@code OnceOnly.builder().sqlite(path)}) and on a database of the embedded PostgreSQL ({@code
 * fsync} off), each stored with set-based SQL straight into the library's tables after its
 * migrations ran ({@link GrowthStore}):
 *
 * <ol>
 *   <li>new receipts a second, 8 caller threads, with 0, 1, 5 and 10 million receipts stored, on
 *       one store grown step by step, then on a fresh store again ({@link GrowthReceipts});
 *   <li>claims a second with 1 thousand, 100 thousand and 1 million messages waiting, in one queue
 *       and over 1,000 partitions ({@link GrowthClaims});
 *   <li>the dashboard's overview and {@code Maintenance.status()} at 10 million messages, the
 *       median of several calls, with the plans of the status's counting statements ({@link
 *       GrowthPurge#reads});
 *   <li>a purge of 5 million expired receipts with a Worker draining beside it ({@link
 *       GrowthPurge#purge}), in the store of parts 2 and 3.
 * </ol>
 *
 * <p>Each point is measured for a fixed number of seconds; the load average ({@code /proc/loadavg})
 * is printed with every row. The tables go to {@code target/benchmarks/growth.md}, the charts to
 * {@code docs/growth-receipts.svg} and {@code docs/growth-claims.svg}; every store is deleted when
 * its part is done.
 *
 * <p>Run: {@code mvn -B -o -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.GrowthBenchMain -Dbench.args="..."} with {@code scale=0.1} (every
 * count times this: 0.1 for a quick run of a tenth of the rows), {@code db=sqlite,postgresql} (the
 * databases, in this order), {@code parts=receipts,claims,reads,purge}, {@code seconds=10} (each
 * point), {@code warmup=3} (seconds unrecorded before the first point, 0 for none), {@code
 * threads=8} (receipts callers), {@code claimThreads=4} and {@code batch=10} (claimers and the
 * batch of each {@code receive}), {@code partitions=1000}, {@code rounds=5} (calls of the overview
 * and of the status), {@code again=true} (the small-store point again on a fresh store), {@code
 * svg=docs} (where the charts go; {@code none} for none).
 */
public final class GrowthBenchMain {
  private GrowthBenchMain() {}

  /** The switches of one run. */
  record Settings(
      double scale,
      List<String> dbs,
      List<String> parts,
      int seconds,
      int warmup,
      int threads,
      int claimThreads,
      int batch,
      int partitions,
      int rounds,
      boolean again,
      String svg) {
    static Settings parse(String[] args) {
      Map<String, String> a = WorkerBenchMain.arguments(args);
      return new Settings(
          Double.parseDouble(a.getOrDefault("scale", "1")),
          List.of(a.getOrDefault("db", "sqlite,postgresql").split(",")),
          List.of(a.getOrDefault("parts", "receipts,claims,reads,purge").split(",")),
          Integer.parseInt(a.getOrDefault("seconds", "10")),
          Integer.parseInt(a.getOrDefault("warmup", "3")),
          Integer.parseInt(a.getOrDefault("threads", "8")),
          Integer.parseInt(a.getOrDefault("claimThreads", "4")),
          Integer.parseInt(a.getOrDefault("batch", "10")),
          Integer.parseInt(a.getOrDefault("partitions", "1000")),
          Integer.parseInt(a.getOrDefault("rounds", "5")),
          Boolean.parseBoolean(a.getOrDefault("again", "true")),
          a.getOrDefault("svg", "docs"));
    }

    long scaled(long n) {
      return Math.max(n == 0 ? 0 : 100, Math.round(n * scale));
    }

    List<Long> receiptLevels() {
      return List.of(0L, scaled(1_000_000), scaled(5_000_000), scaled(10_000_000));
    }

    List<Long> claimLevels() {
      return List.of(scaled(1_000), scaled(100_000), scaled(1_000_000));
    }
  }

  public static void main(String[] args) throws Exception {
    Settings s = Settings.parse(args);
    System.out.printf(
        Locale.ROOT,
        "GrowthBenchMain start %s, load %s, %s%n",
        Instant.now(),
        WorkerBenchMain.loadAverage(),
        s);
    StringBuilder receipts = new StringBuilder(GrowthReceipts.HEADER);
    StringBuilder claims = new StringBuilder(GrowthClaims.HEADER);
    StringBuilder reads =
        new StringBuilder(
            "| database | when | messages | receipts | overview page (median) | status()"
                + " (median) | load avg |\n|---|---|---:|---:|---:|---:|---|\n");
    StringBuilder purges =
        new StringBuilder(
            "| database | receipts stored | tombstoned | purge took | longest batch | Worker"
                + " jobs/s before | during | during / before | longest gap before | longest gap"
                + " during | stalls of 100 ms or more (from the purge's start) | seeding before"
                + " | load avg |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n");
    StringBuilder plans = new StringBuilder();
    Map<String, List<GrowthSvg.Point>> receiptSeries = new LinkedHashMap<>();
    Map<String, List<GrowthSvg.Point>> claimSeries = new LinkedHashMap<>();
    for (String db : s.dbs()) {
      String title = db.equals("sqlite") ? "SQLite FULL" : "PostgreSQL";
      if (s.parts().contains("receipts")) {
        List<GrowthReceipts.Point> points = GrowthReceipts.run(s, db);
        GrowthReceipts.table(receipts, title, points);
        List<GrowthSvg.Point> series = new ArrayList<>();
        for (GrowthReceipts.Point p : points) {
          if (p.label().equals("A")) {
            series.add(new GrowthSvg.Point(p.stored() / 1e6, p.measured().rate()));
          }
        }
        receiptSeries.put(title, series);
        System.out.println(receipts);
      }
      if (s.parts().contains("claims")
          || s.parts().contains("reads")
          || s.parts().contains("purge")) {
        queueParts(s, db, title, claims, reads, purges, plans, claimSeries);
      }
    }
    StringBuilder out = new StringBuilder();
    out.append("GrowthBenchMain ").append(Instant.now()).append(' ').append(s).append("\n\n");
    out.append("## New receipts a second as the store grows\n\n").append(receipts);
    out.append("\n## Claims a second as the backlog grows\n\n").append(claims);
    out.append("\n## The overview and the status\n\n").append(reads);
    out.append("\n## A purge of expired receipts beside a Worker\n\n").append(purges);
    out.append("\n## Plans of the slow statements\n").append(plans);
    Path file = Path.of("target", "benchmarks", "growth.md");
    Files.createDirectories(file.getParent());
    Files.writeString(file, out.toString());
    System.out.println();
    System.out.println(out);
    System.out.println("written to " + file.toAbsolutePath());
    if (!s.svg().equals("none")) {
      if (!receiptSeries.isEmpty()) {
        GrowthSvg.write(
            Path.of(s.svg(), "growth-receipts.svg"),
            "New receipts a second, " + s.threads() + " callers",
            "receipts stored (millions)",
            "new receipts/s",
            receiptSeries);
      }
      if (!claimSeries.isEmpty()) {
        GrowthSvg.write(
            Path.of(s.svg(), "growth-claims.svg"),
            "Claims a second (receive " + s.batch() + " + ack), " + s.claimThreads() + " threads",
            "messages waiting (millions)",
            "claims/s",
            claimSeries);
      }
    }
  }

  /** Parts 2, 3 and 4 on one store of {@code db}. */
  private static void queueParts(
      Settings s,
      String db,
      String title,
      StringBuilder claims,
      StringBuilder reads,
      StringBuilder purges,
      StringBuilder plans,
      Map<String, List<GrowthSvg.Point>> claimSeries)
      throws Exception {
    try (GrowthStore store = GrowthStore.create(db);
        OnceOnly once = store.open(b -> b.concurrencyLimitPerPartition(GrowthClaims.PARTED, 1))) {
      if (s.parts().contains("claims")) {
        List<GrowthClaims.Point> points =
            GrowthClaims.run(s, store, once, new GrowthClaims.Backlog());
        GrowthClaims.table(claims, title, points, s.partitions());
        for (String queue : List.of(GrowthClaims.FLAT, GrowthClaims.PARTED)) {
          List<GrowthSvg.Point> series = new ArrayList<>();
          for (GrowthClaims.Point p : points) {
            if (p.queue().equals(queue)) {
              series.add(new GrowthSvg.Point(p.level() / 1e6, p.measured().rate()));
            }
          }
          claimSeries.put(
              title
                  + (queue.equals(GrowthClaims.FLAT)
                      ? ", one queue"
                      : ", " + s.partitions() + " partitions"),
              series);
        }
        GrowthPurge.explain(
            store,
            "the claim's window at the last level",
            List.of(GrowthClaims.partitionWindow(store, s.batch())),
            plans);
        GrowthPurge.explain(
            store,
            "the due window of one queue at the last level",
            GrowthClaims.flatWindow(store, s.batch()),
            plans);
        System.out.println(claims);
      }
      long messages = store.count("SELECT count(*) FROM " + GrowthStore.PREFIX + "messages");
      long target = s.scaled(10_000_000);
      if (messages < target && (s.parts().contains("reads") || s.parts().contains("purge"))) {
        long t0 = System.nanoTime();
        store.messages(GrowthPurge.BULK, 0, target - messages, 0, true);
        store.analyze();
        System.out.printf(
            Locale.ROOT,
            "%s: %,d messages in %s, seeded in %.1f s, %s on disk%n",
            title,
            target,
            GrowthPurge.BULK,
            (System.nanoTime() - t0) / 1e9,
            bytes(store.diskBytes()));
      }
      if (s.parts().contains("reads")) {
        GrowthPurge.Reads r = GrowthPurge.reads(once, store, "messages only", s.rounds());
        row(reads, title, r);
        GrowthPurge.explain(store, "messages only", GrowthPurge.statusStatements(store), plans);
        GrowthPurge.explain(store, "messages only", List.of(GrowthPurge.countQueues()), plans);
        System.out.println(reads);
      }
      if (s.parts().contains("purge")) {
        GrowthPurge.Purge p =
            GrowthPurge.purge(once, store, s.scaled(5_000_000), s.claimThreads(), s.seconds());
        purges.append(
            String.format(
                Locale.ROOT,
                "| %s | %,d | %,d | %.1f s | %.0f ms | %,.0f | %,.0f | %.2f | %.0f ms | %.0f ms"
                    + " | %s | %.1f s | %s |%n",
                title,
                p.receipts(),
                p.tombstoned(),
                p.seconds(),
                p.longestBatchMs(),
                p.before(),
                p.during(),
                p.during() / p.before(),
                p.longestGapBeforeMs(),
                p.longestGapMs(),
                p.stalls(),
                p.seedSeconds(),
                p.load()));
        System.out.println(purges);
        if (s.parts().contains("reads")) {
          row(reads, title, GrowthPurge.reads(once, store, "after the purge", s.rounds()));
          GrowthPurge.explain(
              store, "after the purge", GrowthPurge.statusStatements(store).subList(2, 3), plans);
        }
      }
      System.out.printf(
          Locale.ROOT, "%s store at the end: %s on disk%n", title, bytes(store.diskBytes()));
    }
  }

  private static void row(StringBuilder b, String title, GrowthPurge.Reads r) {
    b.append(
        String.format(
            Locale.ROOT,
            "| %s | %s | %,d | %,d | %.0f ms | %.0f ms | %s |%n",
            title,
            r.when(),
            r.messages(),
            r.receipts(),
            r.overviewMs(),
            r.statusMs(),
            r.load()));
  }

  static String bytes(long n) {
    return n >= 1L << 30
        ? String.format(Locale.ROOT, "%.2f GB", n / (double) (1L << 30))
        : String.format(Locale.ROOT, "%.0f MB", n / (double) (1L << 20));
  }
}
