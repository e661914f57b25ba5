package dev.onceonly.bench;

import dev.onceonly.testing.EmbeddedPg;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link PostgresBenchmark} against one embedded PostgreSQL started here for the whole run:
 * each OnceOnly figure next to its raw JDBC loop, with 1, 8 and 32 client threads, and writes the
 * table to {@code target/benchmarks/postgresql.md}.
 *
 * <p>Run: {@code mvn -B -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.PostgresBenchMain} (add {@code -Dbench.args=quick} for a smoke
 * run). Each side runs twice, in the order library, raw, raw, library, each run {@code -f 1 -wi 2
 * -w 3s -i 3 -r 5s}, and the two runs of a side are averaged.
 */
public final class PostgresBenchMain {
  private PostgresBenchMain() {}

  record Case(String title, String bench, String baseline) {}

  static final List<Case> CASES =
      List.of(
          new Case("execute, new keys", "onceonly_newKey", "raw_newKey"),
          new Case(
              "queue send+receive+ack (jobs/s)", "onceonly_sendReceiveAck", "raw_sendReceiveAck"));

  static final int[] CLIENTS = {1, 8, 32};

  public static void main(String[] args) throws RunnerException, IOException {
    boolean quick = args.length > 0 && args[0].equals("quick");
    String url = EmbeddedPg.url(EmbeddedPg.newDatabase("bench"));
    StringBuilder table = new StringBuilder();
    table.append("| case | clients | OnceOnly ops/s | raw JDBC ops/s | ratio |\n");
    table.append("|---|---:|---:|---:|---:|\n");
    for (Case c : CASES) {
      for (int clients : CLIENTS) {
        // A B B A: on a shared machine the load drifts over minutes; averaging both orders
        // cancels a linear drift instead of charging it to whichever side ran second.
        double ours = run(c.bench(), clients, url, quick);
        double raw = run(c.baseline(), clients, url, quick);
        if (!quick) {
          raw = (raw + run(c.baseline(), clients, url, false)) / 2;
          ours = (ours + run(c.bench(), clients, url, false)) / 2;
        }
        table.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %,.0f | %,.0f | %.2fx |%n",
                c.title(),
                clients,
                ours,
                raw,
                ours / raw));
        System.out.println(table);
      }
    }
    Path out = Path.of("target", "benchmarks", "postgresql.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, table.toString());
    System.out.println();
    System.out.println(table);
    System.out.println("written to " + out.toAbsolutePath());
  }

  private static double run(String benchmark, int clients, String url, boolean quick)
      throws RunnerException {
    Collection<RunResult> results =
        new Runner(
                new OptionsBuilder()
                    .include("dev\\.onceonly\\.bench\\.PostgresBenchmark\\." + benchmark + "$")
                    .threads(clients)
                    .forks(1)
                    .jvmArgs("-Xmx1g", "-Donceonly.bench.pg=" + url)
                    .warmupIterations(quick ? 1 : 2)
                    .warmupTime(TimeValue.seconds(quick ? 1 : 3))
                    .measurementIterations(quick ? 1 : 3)
                    .measurementTime(TimeValue.seconds(quick ? 2 : 5))
                    .build())
            .run();
    if (results.size() != 1) {
      throw new IllegalStateException(benchmark + " produced " + results.size() + " results");
    }
    return results.iterator().next().getPrimaryResult().getScore();
  }
}
