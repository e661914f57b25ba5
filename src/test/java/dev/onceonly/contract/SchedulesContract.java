package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.CatchUp;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.Schedule;
import dev.onceonly.queue.ScheduleResult;
import dev.onceonly.queue.ScheduleSpec;
import dev.onceonly.queue.Schedules;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.Race;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Recurring schedules on every dialect: registration by name (idempotent, conflicting, updated),
 * the slots of cron, fixed-rate and fixed-delay specs, the three catch-up policies, pause, resume
 * and delete, firing by the queue's own claims and by a worker, and one run per slot with two
 * instances and many threads firing at once. Every run is counted from the rows.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class SchedulesContract extends QueueContractSupport {
  private static final Duration LEASE = Duration.ofMinutes(5);
  private static final String Q = "reports";

  private Schedules schedules() {
    return once.schedules();
  }

  private List<String> receivedKeys() {
    List<String> keys = new ArrayList<>();
    for (Delivery d : once.queue().receive(Q, 100, LEASE)) {
      keys.add(d.lease().key());
      assertThat(once.queue().ack(d.lease())).isInstanceOf(QueueResult.Completed.class);
    }
    return keys;
  }

  private static String run(String name, String slot) {
    return Schedule.runKey(name, Instant.parse(slot));
  }

  @Test
  void aScheduleIsRegisteredOnceByNameAndAnotherDefinitionConflictsUntilUpdated() {
    ScheduleSpec hourly = ScheduleSpec.cron("0 * * * *");
    ScheduleResult first = schedules().register("hourly", Q, hourly, Map.of("kind", "summary"));
    assertThat(first.status()).isEqualTo(ScheduleResult.Status.REGISTERED);
    assertThat(first.schedule().nextRun()).contains(Instant.parse("2026-01-01T01:00:00Z"));

    ScheduleResult again = schedules().register("hourly", Q, hourly, Map.of("kind", "summary"));
    assertThat(again.status()).isEqualTo(ScheduleResult.Status.UNCHANGED);

    ScheduleResult other =
        schedules().register("hourly", Q, ScheduleSpec.cron("30 * * * *"), Map.of("kind", "x"));
    assertThat(other.status()).isEqualTo(ScheduleResult.Status.CONFLICT);
    assertThat(other.schedule().spec()).isEqualTo(hourly);

    ScheduleResult updated =
        schedules().update("hourly", Q, ScheduleSpec.cron("30 * * * *"), Map.of("kind", "x"));
    assertThat(updated.status()).isEqualTo(ScheduleResult.Status.UPDATED);

    reopen();
    Schedule stored = schedules().find("hourly").orElseThrow();
    assertThat(stored.spec()).isEqualTo(ScheduleSpec.cron("30 * * * *"));
    assertThat(stored.nextRun()).contains(Instant.parse("2026-01-01T00:30:00Z"));
    assertThat(stored.payload().get("kind").asText()).isEqualTo("x");
    assertThat(schedules().list()).extracting(Schedule::name).containsExactly("hourly");
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_schedules")).isEqualTo(1);
  }

  @Test
  void badDefinitionsAreRefusedWithNothingWritten() {
    assertThatThrownBy(() -> schedules().register("bad", Q, ScheduleSpec.cron("61 * * * *"), 1))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("cron");
    assertThatThrownBy(() -> schedules().register("bad", Q, ScheduleSpec.cron("* * *"), 1))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("5 fields");
    assertThatThrownBy(
            () -> schedules().register("no spaces", Q, ScheduleSpec.cron("* * * * *"), 1))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("name");
    assertThatThrownBy(
            () -> schedules().register("ok", "bad queue", ScheduleSpec.cron("* * * * *"), 1))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("queue");
    assertThatThrownBy(() -> ScheduleSpec.fixedRate(Duration.ofMillis(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("period must be at least 1 second");
    assertThatThrownBy(() -> CatchUp.all(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("max must be between 1 and 10000");
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_schedules")).isZero();
  }

  @Test
  void theQueuesOwnClaimFiresADueSlotAndTheNextRunMovesOn() {
    schedules().register("hourly", Q, ScheduleSpec.cron("0 * * * *"), Map.of("kind", "summary"));
    assertThat(receivedKeys()).isEmpty();

    clock.set(Instant.parse("2026-01-01T01:00:00.400Z"));
    List<Delivery> runs = once.queue().receive(Q, 10, LEASE);
    assertThat(runs).hasSize(1);
    assertThat(runs.get(0).lease().key()).isEqualTo(run("hourly", "2026-01-01T01:00:00Z"));
    assertThat(runs.get(0).payload().get("kind").asText()).isEqualTo("summary");
    once.queue().ack(runs.get(0).lease());

    reopen();
    assertThat(schedules().find("hourly").orElseThrow().nextRun())
        .contains(Instant.parse("2026-01-01T02:00:00Z"));
    assertThat(schedules().find("hourly").orElseThrow().lastSlot())
        .contains(Instant.parse("2026-01-01T01:00:00Z"));
    assertThat(receivedKeys()).isEmpty();
  }

  @Test
  void aFixedRateRunsAtRegistrationAndEveryPeriodAfter() {
    schedules().register("sweep", Q, ScheduleSpec.fixedRate(Duration.ofMinutes(10)), "sweep");
    assertThat(receivedKeys()).containsExactly(run("sweep", "2026-01-01T00:00:00Z"));
    clock.advance(Duration.ofMinutes(9));
    assertThat(receivedKeys()).isEmpty();
    clock.advance(Duration.ofMinutes(2));
    assertThat(receivedKeys()).containsExactly(run("sweep", "2026-01-01T00:10:00Z"));
    assertThat(schedules().find("sweep").orElseThrow().nextRun())
        .contains(Instant.parse("2026-01-01T00:20:00Z"));
  }

  @Test
  void missedSlotsRunOnceByDefaultKeyedByTheNewest() {
    schedules().register("hourly", Q, ScheduleSpec.cron("0 * * * *"), 1);
    clock.set(Instant.parse("2026-01-01T05:20:00Z"));
    assertThat(receivedKeys()).containsExactly(run("hourly", "2026-01-01T05:00:00Z"));
    assertThat(schedules().find("hourly").orElseThrow().nextRun())
        .contains(Instant.parse("2026-01-01T06:00:00Z"));
  }

  @Test
  void catchUpAllRunsEveryMissedSlotUpToItsBoundNewestFirstKept() {
    schedules().register("all", Q, ScheduleSpec.cron("0 * * * *").catchUp(CatchUp.all(3)), 1);
    schedules().register("every", Q, ScheduleSpec.cron("0 * * * *").catchUp(CatchUp.all(10)), 1);
    clock.set(Instant.parse("2026-01-01T05:20:00Z"));
    assertThat(receivedKeys())
        .containsExactlyInAnyOrder(
            run("all", "2026-01-01T03:00:00Z"),
            run("all", "2026-01-01T04:00:00Z"),
            run("all", "2026-01-01T05:00:00Z"),
            run("every", "2026-01-01T01:00:00Z"),
            run("every", "2026-01-01T02:00:00Z"),
            run("every", "2026-01-01T03:00:00Z"),
            run("every", "2026-01-01T04:00:00Z"),
            run("every", "2026-01-01T05:00:00Z"));
  }

  @Test
  void catchUpSkipRunsNothingLateAndTheNextSlotOnTime() {
    schedules()
        .register(
            "warm",
            Q,
            ScheduleSpec.cron("0 * * * *").catchUp(CatchUp.skip(Duration.ofMinutes(1))),
            1);
    clock.set(Instant.parse("2026-01-01T05:20:00Z"));
    assertThat(receivedKeys()).isEmpty();
    assertThat(schedules().find("warm").orElseThrow().nextRun())
        .contains(Instant.parse("2026-01-01T06:00:00Z"));
    clock.set(Instant.parse("2026-01-01T06:00:30Z"));
    assertThat(receivedKeys()).containsExactly(run("warm", "2026-01-01T06:00:00Z"));
  }

  @Test
  void aCronInATimeZoneFollowsItsLocalTime() {
    ZoneId madrid = ZoneId.of("Europe/Madrid");
    schedules().register("morning", Q, ScheduleSpec.cron("0 6 * * *", madrid), 1);
    // 06:00 in Madrid in January is 05:00 UTC.
    assertThat(schedules().find("morning").orElseThrow().nextRun())
        .contains(Instant.parse("2026-01-01T05:00:00Z"));
    clock.set(Instant.parse("2026-07-01T00:00:00Z"));
    assertThat(receivedKeys()).containsExactly(run("morning", "2026-06-30T04:00:00Z"));
    // In summer 06:00 in Madrid is 04:00 UTC.
    assertThat(schedules().find("morning").orElseThrow().nextRun())
        .contains(Instant.parse("2026-07-01T04:00:00Z"));
  }

  /**
   * Berlin skips 02:00-03:00 on 2026-03-29 (01:00Z): a fixed-time job due in the gap runs once, at
   * the change; an hourly job follows real time. The clock moves ten minutes a step and each step's
   * runs are handled; the effects are read after reopening.
   */
  @Test
  void aFixedTimeInTheSpringGapRunsOnceAtTheChangeAndAnHourlyJobFollowsRealTime()
      throws SQLException {
    runThroughBerlin(Instant.parse("2026-03-28T23:00:00Z"), Instant.parse("2026-03-29T03:00:00Z"));
    assertThat(db.strings("SELECT message_key FROM effects ORDER BY message_key"))
        .containsExactlyInAnyOrder(
            run("hourly", "2026-03-28T23:00:00Z"), // 00:00 CET
            run("hourly", "2026-03-29T00:00:00Z"), // 01:00 CET
            run("hourly", "2026-03-29T01:00:00Z"), // 03:00 CEST, right after the change
            run("hourly", "2026-03-29T02:00:00Z"),
            run("hourly", "2026-03-29T03:00:00Z"),
            run("at-two-thirty", "2026-03-29T01:00:00Z"), // 02:30 does not exist
            run("twice-at-two", "2026-03-29T01:00:00Z"), // nor 02:00: both run once, together
            run("every-ten-at-two", "2026-03-29T01:00:00Z"));
    assertThat(duplicatedEffects()).isZero();
  }

  /**
   * Berlin repeats 02:00-03:00 on 2026-10-25 (00:00Z-01:00Z in CEST, 01:00Z-02:00Z in CET): a
   * fixed-time job runs at the first pass only, whether its minute field is one value, a list or a
   * step; an hourly job runs in both, under distinct keys.
   */
  @Test
  void aFixedTimeInTheRepeatedHourRunsOnceAndAnHourlyJobRunsInBothPasses() throws SQLException {
    runThroughBerlin(Instant.parse("2026-10-24T22:00:00Z"), Instant.parse("2026-10-25T03:00:00Z"));
    assertThat(db.strings("SELECT message_key FROM effects ORDER BY message_key"))
        .containsExactlyInAnyOrder(
            run("hourly", "2026-10-24T22:00:00Z"), // 00:00 CEST
            run("hourly", "2026-10-24T23:00:00Z"), // 01:00 CEST
            run("hourly", "2026-10-25T00:00:00Z"), // 02:00 CEST
            run("hourly", "2026-10-25T01:00:00Z"), // 02:00 CET
            run("hourly", "2026-10-25T02:00:00Z"),
            run("hourly", "2026-10-25T03:00:00Z"),
            run("at-two-thirty", "2026-10-25T00:30:00Z"),
            run("twice-at-two", "2026-10-25T00:00:00Z"),
            run("twice-at-two", "2026-10-25T00:30:00Z"),
            run("every-ten-at-two", "2026-10-25T00:00:00Z"),
            run("every-ten-at-two", "2026-10-25T00:10:00Z"),
            run("every-ten-at-two", "2026-10-25T00:20:00Z"),
            run("every-ten-at-two", "2026-10-25T00:30:00Z"),
            run("every-ten-at-two", "2026-10-25T00:40:00Z"),
            run("every-ten-at-two", "2026-10-25T00:50:00Z"));
    assertThat(duplicatedEffects()).isZero();
  }

  /**
   * Registers four Berlin schedules at {@code from}, then moves the clock to {@code until} ten
   * minutes a step, committing each step's runs as effects, and reopens.
   */
  private void runThroughBerlin(Instant from, Instant until) throws SQLException {
    ZoneId berlin = ZoneId.of("Europe/Berlin");
    clock.set(from.minusSeconds(1));
    schedules().register("hourly", Q, ScheduleSpec.cron("0 * * * *", berlin), 1);
    schedules().register("at-two-thirty", Q, ScheduleSpec.cron("30 2 * * *", berlin), 1);
    schedules().register("twice-at-two", Q, ScheduleSpec.cron("0,30 2 * * *", berlin), 1);
    schedules().register("every-ten-at-two", Q, ScheduleSpec.cron("*/10 2 * * *", berlin), 1);
    while (clock.instant().isBefore(until)) {
      clock.advance(Duration.ofMinutes(10));
      schedules().fireDue();
      for (Delivery d : once.queue().receive(Q, 100, LEASE)) {
        assertThat(once.queue().complete(d.lease(), tx -> insertEffect(tx, d.lease().key(), "run")))
            .isInstanceOf(QueueResult.Completed.class);
      }
    }
    reopen();
  }

  @Test
  void aPausedScheduleFiresNothingAndResumesFromTheNextSlotWithoutCatchingUp() {
    schedules().register("hourly", Q, ScheduleSpec.cron("0 * * * *").catchUp(CatchUp.all(10)), 1);
    assertThat(schedules().pause("hourly")).isTrue();
    assertThat(schedules().pause("hourly")).isFalse();
    clock.set(Instant.parse("2026-01-01T05:20:00Z"));
    assertThat(receivedKeys()).isEmpty();
    assertThat(schedules().fireDue()).isEmpty();
    reopen();
    assertThat(schedules().find("hourly").orElseThrow().paused()).isTrue();
    assertThat(schedules().resume("hourly")).isTrue();
    assertThat(schedules().find("hourly").orElseThrow().nextRun())
        .contains(Instant.parse("2026-01-01T06:00:00Z"));
    clock.set(Instant.parse("2026-01-01T06:00:01Z"));
    assertThat(receivedKeys()).containsExactly(run("hourly", "2026-01-01T06:00:00Z"));
    assertThat(schedules().delete("hourly")).isTrue();
    assertThat(schedules().delete("hourly")).isFalse();
    clock.set(Instant.parse("2026-01-01T09:00:01Z"));
    assertThat(receivedKeys()).isEmpty();
    assertThat(schedules().find("hourly")).isEmpty();
  }

  @Test
  void aFixedDelayWaitsForItsRunToLeaveTheQueue() {
    schedules().register("poll", Q, ScheduleSpec.fixedDelay(Duration.ofMinutes(1)), 1);
    List<Delivery> first = once.queue().receive(Q, 10, LEASE);
    assertThat(first)
        .extracting(d -> d.lease().key())
        .containsExactly(run("poll", "2026-01-01T00:00:00Z"));
    clock.advance(Duration.ofMinutes(3));
    assertThat(schedules().fireDue()).isEmpty(); // the first run is still leased
    assertThat(schedules().find("poll").orElseThrow().nextRun()).isEmpty();
    once.queue().ack(first.get(0).lease());
    assertThat(schedules().fireDue()).isEmpty(); // released: due a minute after now
    assertThat(schedules().find("poll").orElseThrow().nextRun())
        .contains(Instant.parse("2026-01-01T00:04:00Z"));
    clock.advance(Duration.ofMinutes(1));
    assertThat(schedules().fireDue())
        .extracting(SendResult::key)
        .containsExactly(run("poll", "2026-01-01T00:04:00Z"));
  }

  @Test
  void aWorkerServingTheQueueRunsItsSchedules() {
    schedules().register("sweep", Q, ScheduleSpec.fixedRate(Duration.ofMinutes(1)), "sweep");
    Handler handler = job -> job.completeWith(tx -> insertEffect(tx, job.lease().key(), "worker"));
    try (Worker worker =
        Worker.builder(once.queue(), Q, handler)
            .threads(1)
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
            .build()
            .start()) {
      // Each slot is awaited before the clock moves on: moved first, the default catch-up would
      // run only the newest of the slots due by then.
      Eventually.await(Duration.ofSeconds(20), "run 1", () -> effects() == 1);
      for (int minute = 1; minute <= 3; minute++) {
        clock.advance(Duration.ofMinutes(1));
        long want = minute + 1;
        Eventually.await(Duration.ofSeconds(20), "run " + want, () -> effects() == want);
      }
    }
    assertThat(db.strings("SELECT message_key FROM effects ORDER BY message_key"))
        .containsExactly(
            run("sweep", "2026-01-01T00:00:00Z"),
            run("sweep", "2026-01-01T00:01:00Z"),
            run("sweep", "2026-01-01T00:02:00Z"),
            run("sweep", "2026-01-01T00:03:00Z"));
  }

  /**
   * Two instances, eight threads each, claim and acknowledge as fast as they can while the clock
   * moves through 100 slots: each slot's run commits its effect once. Without the compare-and-set
   * on the next run, an instance that read a slot as due before another fired and acknowledged it
   * sends it again.
   */
  @Test
  void manyThreadsOfTwoInstancesFiringAtOnceRunEachSlotOnce() throws Exception {
    once.schedules()
        .register(
            "tick", Q, ScheduleSpec.fixedRate(Duration.ofSeconds(1)).catchUp(CatchUp.all(1000)), 1);
    OnceOnly other = db.open(clock);
    try {
      AtomicBoolean done = new AtomicBoolean();
      Thread mover =
          new Thread(
              () -> {
                for (int i = 0; i < 100; i++) {
                  clock.advance(Duration.ofSeconds(1));
                  LockSupport.parkNanos(2_000_000); // paces the slots among the claims
                }
              });
      List<Integer> handled =
          Race.run(
              16,
              t -> {
                OnceOnly mine = t % 2 == 0 ? once : other;
                return () -> {
                  if (t == 0) {
                    mover.start();
                  }
                  int n = 0;
                  long idle = 0;
                  while (idle < 50) {
                    List<Delivery> got = mine.queue().receive(Q, 5, LEASE);
                    idle = got.isEmpty() && !mover.isAlive() ? idle + 1 : 0;
                    for (Delivery d : got) {
                      mine.queue()
                          .complete(d.lease(), tx -> insertEffect(tx, d.lease().key(), "t" + t));
                      n++;
                    }
                    mine.schedules().fireDue();
                  }
                  done.set(true);
                  return n;
                };
              });
      assertThat(done).isTrue();
      assertThat(handled.stream().mapToInt(Integer::intValue).sum()).isEqualTo(101);
    } finally {
      other.close();
    }
    assertThat(duplicatedEffects()).isZero();
    assertThat(effects()).isEqualTo(101);
    assertThat(db.count("SELECT COUNT(DISTINCT message_key) FROM effects")).isEqualTo(101);
  }
}
