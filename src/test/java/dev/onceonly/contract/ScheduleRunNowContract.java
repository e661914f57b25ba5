package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Schedule;
import dev.onceonly.queue.ScheduleSpec;
import dev.onceonly.queue.SendResult;
import dev.onceonly.testing.Race;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A schedule's upcoming slots and "run now" on every dialect: the slots listed are the slots that
 * firing then sends (across a daylight-saving change), and a slot run now is sent once, due now,
 * whoever presses and however often, and is not fired again when its time comes.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class ScheduleRunNowContract extends QueueContractSupport {
  private static final String Q = "reports";

  private long runs(String name, Instant slot) {
    return db.count(
        "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND message_key = ?",
        Q,
        Schedule.runKey(name, slot));
  }

  @Test
  void theUpcomingSlotsAreTheSlotsFiringSendsAcrossADaylightSavingChange() {
    // 02:30 in New York does not exist on 2026-03-08 and runs at the slot the firing code chooses
    ZoneId ny = ZoneId.of("America/New_York");
    once.schedules().register("night", Q, ScheduleSpec.cron("30 2 * * *", ny), Map.of());
    List<Instant> upcoming = once.schedules().upcoming("night", 80);
    assertThat(upcoming).hasSize(80).isSorted().doesNotHaveDuplicates();
    assertThat(once.schedules().upcoming("night", 1)).containsExactly(upcoming.get(0));
    for (Instant slot : upcoming) {
      clock.set(slot);
      List<SendResult> sent = once.schedules().fireDue();
      assertThat(sent)
          .as("at %s", slot)
          .extracting(SendResult::key)
          .containsExactly(Schedule.runKey("night", slot));
    }
    once.schedules()
        .register("rate", Q, ScheduleSpec.fixedRate(Duration.ofMinutes(7)), Map.of("r", 1));
    Instant first = once.schedules().find("rate").orElseThrow().nextRun().orElseThrow();
    assertThat(once.schedules().upcoming("rate", 3))
        .containsExactly(first, first.plusSeconds(420), first.plusSeconds(840));
    once.schedules().register("delay", Q, ScheduleSpec.fixedDelay(Duration.ofMinutes(1)), 1);
    assertThat(once.schedules().upcoming("delay", 5)).hasSize(1);
    once.schedules().pause("rate");
    assertThat(once.schedules().upcoming("rate", 5)).isEmpty();
    assertThat(once.schedules().upcoming("missing", 5)).isEmpty();
    assertThatThrownBy(() -> once.schedules().upcoming("rate", 101))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max must be between 1 and 100");
  }

  @Test
  void aSlotRunNowIsSentDueNowOnceAndNotFiredAgainAtItsTime() {
    once.schedules().register("daily", Q, ScheduleSpec.cron("0 6 * * *"), Map.of("k", 1));
    List<Instant> slots = once.schedules().upcoming("daily", 2);
    Instant slot = slots.get(0);
    Optional<SendResult> sent = once.schedules().runNow("daily", slot);
    assertThat(sent)
        .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(SendResult.Status.SENT));
    assertThat(once.schedules().runNow("daily", slot)).as("pressed twice").isEmpty();
    reopen();
    Schedule s = once.schedules().find("daily").orElseThrow();
    assertThat(s.lastSlot()).contains(slot);
    assertThat(s.nextRun()).contains(slots.get(1));
    assertThat(runs("daily", slot)).isOne();
    assertThat(once.queue().receive(Q, 5, Duration.ofMinutes(1)))
        .singleElement()
        .satisfies(d -> assertThat(d.lease().key()).isEqualTo(Schedule.runKey("daily", slot)));
    clock.set(slot);
    assertThat(once.schedules().fireDue()).as("its time came").isEmpty();
    assertThat(runs("daily", slot)).isOne();
    // a stale slot, a paused schedule and a missing one run nothing
    assertThat(once.schedules().runNow("daily", slot.minusSeconds(60))).isEmpty();
    once.schedules().pause("daily");
    assertThat(once.schedules().runNow("daily", slots.get(1))).isEmpty();
    assertThat(once.schedules().runNow("missing", slot)).isEmpty();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages")).isOne();
  }

  /**
   * Sixteen threads of two instances press "run now" on the same slot at once, while a receiver's
   * firing could take it too: one run is sent, the others are told nothing was run.
   */
  @Test
  void operatorsPressingRunNowAtOnceSendOneRun() throws Exception {
    once.schedules().register("daily", Q, ScheduleSpec.cron("0 6 * * *"), Map.of());
    Instant slot = once.schedules().upcoming("daily", 1).get(0);
    OnceOnly other = db.open(clock);
    try {
      List<Optional<SendResult>> results =
          Race.run(
              16,
              t -> {
                OnceOnly mine = t % 2 == 0 ? once : other;
                return () -> mine.schedules().runNow("daily", slot);
              });
      assertThat(results.stream().filter(Optional::isPresent)).hasSize(1);
      assertThat(results.stream().flatMap(Optional::stream))
          .extracting(SendResult::status)
          .containsExactly(SendResult.Status.SENT);
    } finally {
      other.close();
    }
    reopen();
    assertThat(runs("daily", slot)).isOne();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages")).isOne();
  }
}
