package dev.onceonly.race;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Schedule;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.FileClock;
import dev.onceonly.testing.PostgresContractDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three JVMs start the same schedule (every second, every missed slot caught up) on one database
 * and work its queue while the test moves their shared clock through 1,000 slots; one is killed
 * with SIGKILL midway and a replacement starts. In the end each of the 1,001 slots (the one at
 * registration and 1,000 more) has exactly one {@code runs} row, counted from the table: no slot
 * fired twice by instances racing, none lost to the killed one.
 */
class ScheduleProcessesTest {
  private static final int SLOTS = 1_000;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  @TempDir Path dir;

  @ParameterizedTest(name = "[{0}]")
  @ValueSource(strings = {"sqlite", "postgresql"})
  void threeProcessesOneKilledRunEverySlotOnce(String dialect) throws Exception {
    Path file = dir.resolve("schedules.db");
    PostgresContractDatabase pg =
        dialect.equals("postgresql") ? PostgresContractDatabase.durable() : null;
    String where = pg == null ? "file=" + file : "url=" + pg.url();
    Function<String, Long> count = sql -> pg == null ? Db.count(file, sql) : pg.count(sql);
    try (FileClock clock = FileClock.create(dir.resolve("clock"), T0);
        OnceOnly once = open(pg, file, clock);
        ChildJvm.Group group = new ChildJvm.Group()) {
      once.useTransaction(
          tx ->
              tx.createStatement()
                  .execute(
                      "CREATE TABLE runs (run_key VARCHAR(300) NOT NULL, holder VARCHAR(50) NOT NULL)"));
      List<ChildJvm> instances = new ArrayList<>();
      for (String name : List.of("a", "b", "victim")) {
        instances.add(group.add(start(name, where)));
      }
      for (ChildJvm child : instances) {
        child.awaitLine("ready", TIMEOUT);
      }
      ChildJvm replacement = null;
      for (int slot = 1; slot <= SLOTS; slot++) {
        clock.advance(Duration.ofSeconds(1));
        LockSupport.parkNanos(3_000_000); // paces the slots among the instances' claims
        if (slot == SLOTS / 2) {
          instances.get(2).kill();
          replacement = group.add(start("replacement", where));
        }
      }
      replacement.awaitLine("ready", TIMEOUT);
      // The last slots are fired by the instances' next claims: wait for them before the pause
      // (pausing at once could leave the last slot unfired, and the count below short for ever).
      Eventually.await(
          TIMEOUT,
          "the last slot fired",
          () ->
              once.schedules()
                  .find("tick")
                  .orElseThrow()
                  .lastSlot()
                  .equals(java.util.Optional.of(T0.plusSeconds(SLOTS))));
      // No slot after the last one; then the killed instance's leases run out.
      once.schedules().pause("tick");
      clock.advance(Duration.ofMinutes(1));
      Eventually.await(
          TIMEOUT,
          "every slot run, the killed instance's runs taken over",
          () ->
              count.apply("SELECT COUNT(*) FROM onceonly_messages") == 0
                  && count.apply("SELECT COUNT(DISTINCT run_key) FROM runs") == SLOTS + 1);

      assertThat(count.apply("SELECT COUNT(*) FROM runs")).isEqualTo(SLOTS + 1);
      assertThat(
              count.apply(
                  "SELECT COUNT(*) FROM (SELECT run_key FROM runs GROUP BY run_key"
                      + " HAVING COUNT(*) > 1) d"))
          .as("slots run twice")
          .isZero();
      assertThat(count.apply("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
      for (int k : new int[] {0, 1, SLOTS / 2, SLOTS}) {
        String key = Schedule.runKey("tick", T0.plusSeconds(k));
        assertThat(count.apply("SELECT COUNT(*) FROM runs WHERE run_key = '" + key + "'"))
            .as(key)
            .isOne();
      }
      // Which instances win the claims is the scheduler's business: on a busy machine one of the
      // four may run none. The race needs at least two that ran slots; exactly once is counted
      // above, whatever the spread.
      assertThat(count.apply("SELECT COUNT(DISTINCT holder) FROM runs"))
          .as("instances that ran slots")
          .isGreaterThanOrEqualTo(2);
      assertThat(once.schedules().find("tick").orElseThrow().lastSlot())
          .contains(T0.plusSeconds(SLOTS));
    } finally {
      if (pg != null) {
        pg.close();
      }
    }
  }

  private static OnceOnly open(PostgresContractDatabase pg, Path file, FileClock clock) {
    return (pg == null ? OnceOnly.builder().sqlite(file) : pg.builder()).clock(clock).build();
  }

  private ChildJvm start(String name, String where) {
    return ChildJvm.start(
        name,
        dir,
        ScheduleProcessMain.class,
        where,
        "clock=" + dir.resolve("clock"),
        "worker=" + name);
  }
}
