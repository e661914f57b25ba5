package dev.onceonly.bench;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a million {@code execute} steps with new keys from 4 threads and samples the heap after a
 * full collection every 100,000 steps: the library keeps no per-key state in memory, so the live
 * heap must stay flat while the database grows. Writes {@code target/benchmarks/heap.md}.
 *
 * <p>Run: {@code mvn -B -Pbench test-compile exec:exec -Dbench.main=dev.onceonly.bench.HeapSoak}
 * (add {@code -Dbench.args=200000} for fewer steps).
 */
public final class HeapSoak {
  private HeapSoak() {}

  public static void main(String[] args) throws Exception {
    long steps = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
    int threads = 4;
    long every = steps / 10;
    Path file = BenchDb.newFile();
    try (Connection c = BenchDb.raw(file, "NORMAL")) {
      BenchDb.exec(c, "CREATE TABLE effects (scope TEXT NOT NULL, k TEXT NOT NULL)");
    }
    List<String> rows = new ArrayList<>();
    Runtime memory = Runtime.getRuntime();
    AtomicLong done = new AtomicLong();
    long start = System.nanoTime();
    try (OnceOnly once = BenchDb.open(file, "NORMAL")) {
      rows.add(sample(memory, 0, file, start));
      for (long mark = every; mark <= steps; mark += every) {
        runUntil(once, threads, done, mark);
        rows.add(sample(memory, mark, file, start));
      }
    }
    String table =
        "| steps | live heap after GC (MiB) | database file (MiB) | elapsed (s) |\n"
            + "|---:|---:|---:|---:|\n"
            + String.join("\n", rows)
            + "\n";
    Path out = Path.of("target", "benchmarks", "heap.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, table);
    System.out.println(table);
    System.out.println("written to " + out.toAbsolutePath());
    BenchDb.delete(file);
  }

  private static void runUntil(OnceOnly once, int threads, AtomicLong done, long mark)
      throws InterruptedException {
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker =
          new Thread(
              () -> {
                long n;
                while ((n = done.incrementAndGet()) <= mark) {
                  step(once, n);
                }
              });
      worker.start();
      workers.add(worker);
    }
    for (Thread w : workers) {
      w.join();
    }
    done.set(mark);
  }

  private static void step(OnceOnly once, long n) {
    String key = "k" + n;
    try {
      once.receipts()
          .execute(
              IntentKey.of("soak", key),
              "touch",
              Map.of("n", n),
              Long.class,
              c -> {
                try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO effects VALUES ('soak', ?)")) {
                  ps.setString(1, key);
                  ps.executeUpdate();
                }
                return n;
              });
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String sample(Runtime memory, long steps, Path file, long start)
      throws IOException {
    System.gc();
    System.gc();
    double heap = (memory.totalMemory() - memory.freeMemory()) / 1048576.0;
    double size = Files.size(file) / 1048576.0;
    double elapsed = (System.nanoTime() - start) / 1e9;
    String row =
        String.format(Locale.ROOT, "| %,d | %.1f | %.1f | %.0f |", steps, heap, size, elapsed);
    System.out.println(row);
    return row;
  }
}
