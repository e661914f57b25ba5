package dev.onceonly.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the storage benchmarks the way the performance targets are stated, each OnceOnly figure next
 * to its raw JDBC baseline measured in the same run, and writes the table to {@code
 * target/benchmarks/results.md}.
 *
 * <p>Run: {@code mvn -B -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.BenchmarkSuite} (add {@code -Dbench.args=quick} for a short smoke
 * run).
 */
public final class BenchmarkSuite {
  private BenchmarkSuite() {}

  /** One comparison: a library benchmark, its baseline, threads, synchronous mode, target. */
  record Case(
      String title, String bench, String baseline, int threads, String sync, String target) {}

  static final List<Case> CASES =
      List.of(
          new Case(
              "execute, new keys",
              "ReceiptBenchmark.onceonly_newKey",
              "ReceiptBenchmark.raw_newKey",
              1,
              "NORMAL",
              ">= 0.85x raw"),
          new Case(
              "execute, new keys",
              "ReceiptBenchmark.onceonly_newKey",
              "ReceiptBenchmark.raw_newKey",
              8,
              "FULL",
              ">= 5x raw and >= 15,000/s"),
          new Case(
              "execute, repeated keys",
              "ReceiptBenchmark.onceonly_repeatedKey",
              "ReceiptBenchmark.raw_repeatedKey",
              4,
              "FULL",
              ">= 50,000/s"),
          new Case(
              "queue send+receive+ack (jobs/s)",
              "QueueBenchmark.onceonly_sendReceiveAck",
              "QueueBenchmark.raw_sendReceiveAck",
              1,
              "FULL",
              ">= 10,000/s and >= 0.7x raw"),
          new Case(
              "queue send+receive+ack (jobs/s)",
              "QueueBenchmark.onceonly_sendReceiveAck",
              "QueueBenchmark.raw_sendReceiveAck",
              4,
              "FULL",
              ">= 10,000/s and >= 0.8x raw"));

  public static void main(String[] args) throws RunnerException, IOException {
    boolean quick = args.length > 0 && args[0].equals("quick");
    StringBuilder table = new StringBuilder();
    table.append(
        "| case | threads | synchronous | OnceOnly ops/s | raw JDBC ops/s | ratio | target |\n");
    table.append("|---|---:|---|---:|---:|---:|---|\n");
    for (Case c : CASES) {
      // A B B A: this machine's disk drifts over minutes; averaging the two orders cancels a
      // linear drift instead of charging it to whichever side ran second.
      double ours = run(c.bench(), c, quick);
      double raw = run(c.baseline(), c, quick);
      if (!quick) {
        raw = (raw + run(c.baseline(), c, false)) / 2;
        ours = (ours + run(c.bench(), c, false)) / 2;
      }
      table.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %s | %,.0f | %,.0f | %.2fx | %s |%n",
              c.title(),
              c.threads(),
              c.sync(),
              ours,
              raw,
              ours / raw,
              c.target()));
    }
    Path out = Path.of("target", "benchmarks", "results.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, table.toString());
    System.out.println();
    System.out.println(table);
    System.out.println("written to " + out.toAbsolutePath());
  }

  private static double run(String benchmark, Case c, boolean quick) throws RunnerException {
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include("dev\\.onceonly\\.bench\\." + benchmark.replace(".", "\\.") + "$")
            .threads(c.threads())
            .param("sync", c.sync())
            .forks(1)
            .jvmArgs("-Xmx1g")
            .warmupIterations(quick ? 1 : 2)
            .warmupTime(TimeValue.seconds(quick ? 1 : 3))
            .measurementIterations(quick ? 1 : 3)
            .measurementTime(TimeValue.seconds(quick ? 2 : 5));
    Collection<RunResult> results = new Runner(options.build()).run();
    List<Double> scores = new ArrayList<>();
    results.forEach(r -> scores.add(r.getPrimaryResult().getScore()));
    if (scores.size() != 1) {
      throw new IllegalStateException(benchmark + " produced " + scores.size() + " results");
    }
    return scores.get(0);
  }
}
