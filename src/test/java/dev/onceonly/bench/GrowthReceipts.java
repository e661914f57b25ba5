package dev.onceonly.bench;

import dev.onceonly.OnceOnly;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Part 1 of {@link GrowthBenchMain}: new receipts a second ({@code once.receipts().execute(key,
 * "touch", arguments, Integer.class, effect)} with new keys, the effect one row in {@code effects},
 * from {@code threads} caller threads, as {@link ReceiptsBenchMain} calls it) on one store grown
 * step by step, and again on a fresh store at the end (A ... A).
 */
final class GrowthReceipts {
  private GrowthReceipts() {}

  /** One measured point of the curve. */
  record Point(
      String label,
      long stored,
      GrowthRun.Measured measured,
      double seedSeconds,
      long diskBytes,
      String load) {}

  static List<Point> run(GrowthBenchMain.Settings s, String db) throws Exception {
    List<Point> points = new ArrayList<>();
    long seeded = 0;
    long stepped = 0;
    try (GrowthStore store = GrowthStore.create(db);
        OnceOnly once = store.open(b -> b)) {
      if (s.warmup() > 0) {
        GrowthRun.Measured w = measure(once, s.threads(), s.warmup(), "warm");
        stepped += w.count();
        System.out.printf(Locale.ROOT, "%s receipts warm-up: %,.0f/s%n", db, w.rate());
      }
      int n = 0;
      for (long target : s.receiptLevels()) {
        long t0 = System.nanoTime();
        if (target > seeded) {
          store.receipts("seed", seeded, target, false);
          store.analyze();
          seeded = target;
        }
        double seedSeconds = (System.nanoTime() - t0) / 1e9;
        long stored = store.count("SELECT count(*) FROM " + GrowthStore.PREFIX + "receipts");
        check(stored == seeded + stepped, "receipts before the point: " + stored);
        GrowthRun.Measured m = measure(once, s.threads(), s.seconds(), "p" + n++);
        stepped += m.count();
        Point p =
            new Point(
                "A", stored, m, seedSeconds, store.diskBytes(), WorkerBenchMain.loadAverage());
        System.out.println(db + " receipts " + describe(p));
        points.add(p);
      }
      long after = store.count("SELECT count(*) FROM " + GrowthStore.PREFIX + "receipts");
      long effects = store.count("SELECT count(*) FROM effects");
      check(after == seeded + stepped, "receipts after the curve: " + after);
      check(effects == stepped, "effects after the curve: " + effects);
    }
    if (s.again()) {
      try (GrowthStore store = GrowthStore.create(db);
          OnceOnly once = store.open(b -> b)) {
        GrowthRun.Measured m = measure(once, s.threads(), s.seconds(), "again");
        long rows = store.count("SELECT count(*) FROM " + GrowthStore.PREFIX + "receipts");
        check(rows == m.count(), "receipts on the fresh store: " + rows);
        Point p = new Point("A again", 0, m, 0, store.diskBytes(), WorkerBenchMain.loadAverage());
        System.out.println(db + " receipts " + describe(p));
        points.add(p);
      }
    }
    return points;
  }

  private static GrowthRun.Measured measure(OnceOnly once, int threads, int seconds, String run)
      throws InterruptedException {
    GrowthRun.Measured m =
        GrowthRun.run(
            threads,
            seconds,
            Long.MAX_VALUE,
            t -> {
              ReceiptsBenchMain.OnceOnlyStepper stepper =
                  new ReceiptsBenchMain.OnceOnlyStepper(once, "t" + t + "-" + run, true, 0);
              return stepper::step;
            });
    check(m.failed() == 0, "a caller failed");
    return m;
  }

  static String describe(Point p) {
    return String.format(
        Locale.ROOT,
        "%s: %,d stored, %,.0f steps/s (%,d in %.1f s), seeded in %.1f s, %s on disk, load %s",
        p.label(),
        p.stored(),
        p.measured().rate(),
        p.measured().count(),
        p.measured().seconds(),
        p.seedSeconds(),
        GrowthBenchMain.bytes(p.diskBytes()),
        p.load());
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("MISMATCH " + what);
    }
  }

  /** The Markdown rows of one database's curve, each against the first (small-store) point. */
  static void table(StringBuilder b, String title, List<Point> points) {
    double base = points.get(0).measured().rate();
    for (Point p : points) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %,d | %,.0f | %.2f | %,d in %.1f s | %.1f s | %s | %s |%n",
              title,
              p.label(),
              p.stored(),
              p.measured().rate(),
              p.measured().rate() / base,
              p.measured().count(),
              p.measured().seconds(),
              p.seedSeconds(),
              GrowthBenchMain.bytes(p.diskBytes()),
              p.load()));
    }
  }

  static final String HEADER =
      "| database | run | receipts stored | new receipts/s | / first point | steps counted"
          + " | seeding before | store on disk | load avg |\n"
          + "|---|---|---:|---:|---:|---:|---:|---:|---|\n";
}
