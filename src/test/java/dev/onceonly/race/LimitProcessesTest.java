package dev.onceonly.race;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.PostgresContractDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A concurrency limit of 2 across three JVMs of four worker threads each, on one SQLite file and on
 * PostgreSQL: while they work 60 messages, the leases sampled from the table never exceed 2, and
 * neither do the handlers running at once (from the start and end instants the processes print on
 * the machine's monotonic clock); every message runs once.
 */
class LimitProcessesTest {
  private static final int MESSAGES = 60;
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  @TempDir Path dir;

  @ParameterizedTest(name = "[{0}]")
  @ValueSource(strings = {"sqlite", "postgresql"})
  void threeProcessesOfFourThreadsNeverHoldMoreThanTheLimit(String dialect) throws Exception {
    Path file = dir.resolve("limit.db");
    PostgresContractDatabase pg =
        dialect.equals("postgresql") ? PostgresContractDatabase.create() : null;
    String where = pg == null ? "file=" + file : "url=" + pg.url();
    Function<String, Long> count = sql -> pg == null ? Db.count(file, sql) : pg.count(sql);
    try (OnceOnly once =
            (pg == null ? OnceOnly.builder().sqlite(file) : pg.builder())
                .concurrencyLimit(LimitProcessMain.QUEUE, LimitProcessMain.LIMIT)
                .build();
        ChildJvm.Group group = new ChildJvm.Group()) {
      once.useTransaction(
          tx ->
              tx.createStatement()
                  .execute(
                      "CREATE TABLE runs (run_key VARCHAR(300) NOT NULL,"
                          + " holder VARCHAR(50) NOT NULL)"));
      for (int i = 0; i < MESSAGES; i++) {
        once.queue().send(LimitProcessMain.QUEUE, "m-" + i, i).orThrow();
      }
      List<ChildJvm> children = new ArrayList<>();
      for (String name : List.of("a", "b", "c")) {
        children.add(
            group.add(ChildJvm.start(name, dir, LimitProcessMain.class, where, "worker=" + name)));
      }
      for (ChildJvm child : children) {
        child.awaitLine("ready", TIMEOUT);
      }
      long maxLeased = 0;
      long samples = 0;
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (count.apply("SELECT COUNT(*) FROM runs") < MESSAGES && System.nanoTime() < deadline) {
        maxLeased =
            Math.max(
                maxLeased,
                count.apply(
                    "SELECT COUNT(*) FROM onceonly_messages WHERE queue = 'limited' AND attempts > 0"));
        samples++;
      }
      Eventually.await(
          TIMEOUT, "every message ran", () -> count.apply("SELECT COUNT(*) FROM runs") == MESSAGES);
      assertThat(maxOverlap(children)).as("handlers running at once").isBetween(1, 2);
      assertThat(maxLeased).as("leases sampled from the table").isBetween(1L, 2L);
      assertThat(samples).isGreaterThan(10);
      assertThat(count.apply("SELECT COUNT(DISTINCT run_key) FROM runs")).isEqualTo(MESSAGES);
      assertThat(count.apply("SELECT COUNT(*) FROM onceonly_messages")).isZero();
      assertThat(count.apply("SELECT COUNT(DISTINCT holder) FROM runs"))
          .as("processes that ran messages")
          .isGreaterThanOrEqualTo(2);
    } finally {
      if (pg != null) {
        pg.close();
      }
    }
  }

  /** The most handlers running at once, from every child's start and end lines. */
  private static int maxOverlap(List<ChildJvm> children) {
    List<long[]> events = new ArrayList<>();
    for (ChildJvm child : children) {
      for (String line : child.lines()) {
        if (line.startsWith("start ")) {
          events.add(new long[] {Long.parseLong(line.substring(6)), 1});
        } else if (line.startsWith("end ")) {
          events.add(new long[] {Long.parseLong(line.substring(4)), -1});
        }
      }
    }
    events.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    int running = 0;
    int max = 0;
    for (long[] e : events) {
      running += (int) e[1];
      max = Math.max(max, running);
    }
    return max;
  }
}
