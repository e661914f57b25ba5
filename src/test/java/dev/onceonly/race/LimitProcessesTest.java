package dev.onceonly.race;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Message;
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
 * A concurrency limit of 2 across three JVMs, on one SQLite file and on PostgreSQL. First each
 * process works with one thread whose handler holds its message until the test says {@code go}
 * ({@link LimitProcessMain}): the test waits until two processes hold one each, and then the table
 * shows exactly 2 leases. Then each process adds four threads and they work the 60 messages: the
 * leases sampled from the table never exceed 2, nor do the handlers running at once (from the start
 * and end instants the processes print on the machine's monotonic clock); every message runs once.
 * The same with a limit of 1 per partition over two partitions: one lease and one handler at a time
 * in each partition, two in all. Nothing is asserted about how much happened in a window.
 */
class LimitProcessesTest {
  private static final int MESSAGES = 60;
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  @TempDir Path dir;

  @ParameterizedTest(name = "[{0}]")
  @ValueSource(strings = {"sqlite", "postgresql"})
  void threeProcessesOfFourThreadsNeverHoldMoreThanTheLimit(String dialect) throws Exception {
    run(dialect, false);
  }

  @ParameterizedTest(name = "[{0}]")
  @ValueSource(strings = {"sqlite", "postgresql"})
  void threeProcessesOfFourThreadsNeverHoldMoreThanTheLimitOfAPartition(String dialect)
      throws Exception {
    run(dialect, true);
  }

  private void run(String dialect, boolean partitioned) throws Exception {
    Path file = dir.resolve("limit.db");
    PostgresContractDatabase pg =
        dialect.equals("postgresql") ? PostgresContractDatabase.durable() : null;
    String where = pg == null ? "file=" + file : "url=" + pg.url();
    Function<String, Long> count = sql -> pg == null ? Db.count(file, sql) : pg.count(sql);
    try (OnceOnly once =
            (pg == null ? OnceOnly.builder().sqlite(file) : pg.builder())
                .concurrencyLimit(LimitProcessMain.QUEUE, LimitProcessMain.LIMIT)
                .concurrencyLimitPerPartition(
                    LimitProcessMain.QUEUE, LimitProcessMain.PER_PARTITION)
                .build();
        ChildJvm.Group group = new ChildJvm.Group()) {
      once.useTransaction(
          tx ->
              tx.createStatement()
                  .execute(
                      "CREATE TABLE runs (run_key VARCHAR(300) NOT NULL,"
                          + " holder VARCHAR(50) NOT NULL)"));
      for (int i = 0; i < MESSAGES; i++) {
        String partition = "p" + (i % 2);
        once.queue()
            .send(
                partitioned
                    ? Message.of(LimitProcessMain.QUEUE, partition + "/m-" + i, i)
                        .partition(partition)
                    : Message.of(LimitProcessMain.QUEUE, "m-" + i, i))
            .orThrow();
      }
      List<ChildJvm> children = new ArrayList<>();
      for (String name : List.of("a", "b", "c")) {
        children.add(
            group.add(
                ChildJvm.start(
                    name,
                    dir,
                    LimitProcessMain.class,
                    where,
                    "worker=" + name,
                    "partitioned=" + partitioned)));
      }
      for (ChildJvm child : children) {
        child.awaitLine("ready", TIMEOUT);
      }
      String claimed =
          "SELECT COUNT(*) FROM onceonly_messages WHERE queue = 'limited' AND attempts > 0";
      // Each process holds at most one message until the gate opens: the limit is reached by two
      // processes at once, and nothing else can be leased while it is.
      Eventually.await(TIMEOUT, "two handlers held at once", () -> held(children).size() == 2);
      assertThat(held(children)).as("the processes holding a message").doesNotHaveDuplicates();
      assertThat(count.apply(claimed)).as("leases while the limit is reached").isEqualTo(2);
      if (partitioned) {
        for (String p : List.of("p0", "p1")) {
          assertThat(count.apply(claimed + " AND partition_key = '" + p + "'"))
              .as("leases of %s while the limit is reached", p)
              .isEqualTo(1);
        }
      }
      children.forEach(child -> child.send("go"));
      long maxLeased = 0;
      long maxInPartition = 0;
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (count.apply("SELECT COUNT(*) FROM runs") < MESSAGES && System.nanoTime() < deadline) {
        maxLeased = Math.max(maxLeased, count.apply(claimed));
        for (String p : List.of("p0", "p1")) {
          maxInPartition =
              Math.max(maxInPartition, count.apply(claimed + " AND partition_key = '" + p + "'"));
        }
      }
      Eventually.await(
          TIMEOUT, "every message ran", () -> count.apply("SELECT COUNT(*) FROM runs") == MESSAGES);
      assertThat(maxOverlap(children, "")).as("handlers running at once").isEqualTo(2);
      // However many samples the run allowed, none may see more leases than the limit.
      assertThat(maxLeased).as("leases sampled from the table").isLessThanOrEqualTo(2L);
      if (partitioned) {
        for (String p : List.of("p0 ", "p1 ")) {
          assertThat(maxOverlap(children, p)).as("handlers of %srunning at once", p).isEqualTo(1);
        }
        assertThat(maxInPartition).as("leases of one partition").isLessThanOrEqualTo(1);
      }
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

  /** The workers of the handlers holding their message at the gate, one entry each. */
  private static List<String> held(List<ChildJvm> children) {
    List<String> held = new ArrayList<>();
    for (ChildJvm child : children) {
      for (String line : child.lines()) {
        if (line.startsWith("held ")) {
          held.add(line.substring("held ".length()));
        }
      }
    }
    return held;
  }

  /**
   * The most handlers running at once whose lines carry {@code tag} after the word (every handler
   * for an empty tag), from every child's start and end lines.
   */
  private static int maxOverlap(List<ChildJvm> children, String tag) {
    List<long[]> events = new ArrayList<>();
    for (ChildJvm child : children) {
      for (String line : child.lines()) {
        if (line.startsWith("start " + tag)) {
          events.add(new long[] {nanos(line), 1});
        } else if (line.startsWith("end " + tag)) {
          events.add(new long[] {nanos(line), -1});
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

  private static long nanos(String line) {
    return Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
  }
}
