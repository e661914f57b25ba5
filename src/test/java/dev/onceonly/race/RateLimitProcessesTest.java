package dev.onceonly.race;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Message;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.PostgresContractDatabase;
import dev.onceonly.testing.RateWindows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A rate limit across two JVMs of four worker threads each, on one SQLite file and on PostgreSQL
 * ({@link RateLimitProcessMain}: {@value RateLimitProcessMain#CLAIMS} claims per {@value
 * RateLimitProcessMain#WINDOW_MILLIS} ms, beside a concurrency limit): the claim times the
 * processes print hold at most the limit in any window starting at any claim, on average at least
 * eight tenths of it per whole window while work waited (a mean, so that one window in which the
 * loaded machine starved both processes does not count as the limiter's), and every message ran
 * once, by both processes.
 */
class RateLimitProcessesTest {
  private static final int WINDOWS = 12;
  private static final int MESSAGES = RateLimitProcessMain.CLAIMS * WINDOWS;
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  @TempDir Path dir;

  @ParameterizedTest(name = "[{0}]")
  @ValueSource(strings = {"sqlite", "postgresql"})
  void twoProcessesOfFourThreadsClaimAtMostTheLimitPerWindowAndNearlyAllOfIt(String dialect)
      throws Exception {
    Path file = dir.resolve("paced.db");
    PostgresContractDatabase pg =
        dialect.equals("postgresql") ? PostgresContractDatabase.durable() : null;
    String where = pg == null ? "file=" + file : "url=" + pg.url();
    Function<String, Long> count = sql -> pg == null ? Db.count(file, sql) : pg.count(sql);
    try (OnceOnly once = (pg == null ? OnceOnly.builder().sqlite(file) : pg.builder()).build();
        ChildJvm.Group group = new ChildJvm.Group()) {
      once.useTransaction(
          tx ->
              tx.createStatement()
                  .execute(
                      "CREATE TABLE runs (run_key VARCHAR(300) NOT NULL,"
                          + " holder VARCHAR(50) NOT NULL)"));
      for (int i = 0; i < MESSAGES; i++) {
        // two priorities: the limit counts claims whatever the order they are taken in
        once.queue()
            .send(Message.of(RateLimitProcessMain.QUEUE, "m-" + i, i).priority(i % 2 == 0 ? 0 : 5))
            .orThrow();
      }
      List<ChildJvm> children = new ArrayList<>();
      for (String name : List.of("a", "b")) {
        children.add(
            group.add(
                ChildJvm.start(name, dir, RateLimitProcessMain.class, where, "worker=" + name)));
      }
      Eventually.await(
          TIMEOUT, "every message ran", () -> count.apply("SELECT COUNT(*) FROM runs") == MESSAGES);
      List<Long> times = new ArrayList<>();
      Set<String> keys = new HashSet<>();
      for (ChildJvm child : children) {
        for (String line : child.lines()) {
          if (line.startsWith("claimed ")) {
            String[] parts = line.split(" ");
            keys.add(parts[1]);
            times.add(Long.parseLong(parts[2]));
          }
        }
      }
      Collections.sort(times);
      int most = RateWindows.mostInAnyWindow(times, RateLimitProcessMain.WINDOW_MILLIS);
      int least = RateWindows.leastInAWholeWindow(times, RateLimitProcessMain.WINDOW_MILLIS);
      double mean = RateWindows.meanInWholeWindows(times, RateLimitProcessMain.WINDOW_MILLIS);
      System.out.printf(
          java.util.Locale.ROOT,
          "rate limit over two processes [%s]: %d per %d ms, most in any window %d, least in a"
              + " whole window %d, mean %.2f%n",
          dialect,
          RateLimitProcessMain.CLAIMS,
          RateLimitProcessMain.WINDOW_MILLIS,
          most,
          least,
          mean);
      assertThat(times).as("claims printed").hasSize(MESSAGES);
      assertThat(keys).as("messages claimed").hasSize(MESSAGES);
      assertThat(most).as("claims in any window").isLessThanOrEqualTo(RateLimitProcessMain.CLAIMS);
      assertThat(mean)
          .as("claims per whole window while work waited (least %d)", least)
          .isGreaterThanOrEqualTo(0.8 * RateLimitProcessMain.CLAIMS);
      assertThat(count.apply("SELECT COUNT(DISTINCT run_key) FROM runs")).isEqualTo(MESSAGES);
      assertThat(count.apply("SELECT COUNT(*) FROM onceonly_messages")).isZero();
      assertThat(count.apply("SELECT COUNT(DISTINCT holder) FROM runs"))
          .as("processes that ran messages")
          .isEqualTo(2);
    } finally {
      if (pg != null) {
        pg.close();
      }
    }
  }
}
