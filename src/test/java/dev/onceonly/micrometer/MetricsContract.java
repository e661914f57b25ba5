package dev.onceonly.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.contract.ContractSupport;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.ScriptedRun;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Micrometer meters: after a scripted run (created, repeated, conflict, a completed message, a
 * dead letter, an unknown claim) each meter holds exactly what happened, and the gauges follow the
 * rows, read again from a reopened store.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class MetricsContract extends ContractSupport {
  private final MeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void afterAScriptedRunEveryMeterHoldsExactlyWhatHappened() {
    OnceOnlyMetrics metrics = OnceOnlyMetrics.of(registry);
    start(b -> b.listener(metrics));
    metrics.bindDropped(once.events());
    ScriptedRun.run(once);
    once.queue().send(ScriptedRun.QUEUE, "m3", Map.of("n", 3));
    try (Worker worker =
        Worker.builder(once.queue(), ScriptedRun.QUEUE, job -> {}).build().start()) {
      Eventually.await(
          Duration.ofSeconds(20), () -> count("SELECT COUNT(*) FROM onceonly_messages") == 0);
    }
    assertThat(once.events().drain(Duration.ofSeconds(10))).isTrue();

    Map<String, Double> expected = new TreeMap<>();
    expected.put("onceonly.events.dropped", 0.0);
    expected.put("onceonly.receipts.outcomes{operation=charge,outcome=created}", 1.0);
    expected.put("onceonly.receipts.outcomes{operation=charge,outcome=repeated}", 1.0);
    expected.put("onceonly.receipts.outcomes{operation=charge,outcome=conflict}", 1.0);
    expected.put("onceonly.receipts.step.duration{operation=charge,outcome=created}", 1.0);
    expected.put("onceonly.receipts.step.duration{operation=charge,outcome=repeated}", 1.0);
    expected.put("onceonly.receipts.step.duration{operation=charge,outcome=conflict}", 1.0);
    expected.put("onceonly.queue.sends{queue=jobs,status=sent}", 3.0);
    expected.put("onceonly.queue.sends{queue=jobs,status=repeated}", 1.0);
    expected.put("onceonly.queue.claim.batch{queue=jobs}", 3.0);
    expected.put("onceonly.queue.settlements{queue=jobs,result=completed}", 2.0);
    expected.put("onceonly.queue.settlements{queue=jobs,result=dead_lettered}", 1.0);
    expected.put("onceonly.queue.handler.duration{outcome=success,queue=jobs}", 1.0);
    expected.put("onceonly.external.claims{operation=pay,outcome=claimed}", 1.0);
    expected.put("onceonly.external.claims{operation=pay,outcome=unknown}", 1.0);
    expected.put("onceonly.external.settlements{operation=pay,outcome=unknown}", 1.0);
    Map<String, Double> found = meters();
    if (once.dialect() == dev.onceonly.sql.Dialect.SQLITE) {
      // One group commit of one step (nothing ran at once) per write transaction: the migration's,
      // the script's 13, the send of m3, the worker's claim and acknowledgement of it = 17, plus
      // the worker's polls of the empty queue (a claim is a write), as many as the wait took.
      Double commits = found.get("onceonly.groupcommit.batch.size");
      assertThat(commits).isNotNull().isGreaterThanOrEqualTo(17.0);
      assertThat(registry.get("onceonly.groupcommit.batch.size").summary().max()).isEqualTo(1.0);
      expected.put("onceonly.groupcommit.batch.size", commits);
    }
    assertThat(found).isEqualTo(expected);
    assertThat(registry.get("onceonly.queue.claim.batch").summary().totalAmount()).isEqualTo(3.0);
  }

  @Test
  void aFiredScheduleSlotIsCountedByScheduleAndQueue() {
    OnceOnlyMetrics metrics = OnceOnlyMetrics.of(registry);
    start(b -> b.listener(metrics));
    once.schedules()
        .register(
            "tick",
            "ticks",
            dev.onceonly.queue.ScheduleSpec.fixedRate(Duration.ofMinutes(1)),
            Map.of("n", 1));
    clock.advance(Duration.ofMinutes(1));
    int runs = once.queue().receive("ticks", 10, Duration.ofMinutes(5)).size();
    assertThat(once.events().drain(Duration.ofSeconds(10))).isTrue();
    assertThat(runs).isPositive();
    assertThat(
            registry
                .get("onceonly.schedules.fired")
                .tags("schedule", "tick", "queue", "ticks")
                .counter()
                .count())
        .isEqualTo(runs);
    reopen();
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages WHERE queue = 'ticks'"))
        .isEqualTo(runs);
  }

  @Test
  void theGaugesFollowTheRowsOfAReopenedStore() {
    start();
    ScriptedRun.run(once);
    once.queue().send(ScriptedRun.QUEUE, "a", Map.of());
    once.queue().send(ScriptedRun.QUEUE, "b", Map.of());
    once.queue().receive(ScriptedRun.QUEUE, 1, Duration.ofMinutes(5)); // one leased, one due
    once.queue()
        .send(
            dev.onceonly.queue.Message.of(ScriptedRun.QUEUE, "later", Map.of())
                .deliverAt(clock.instant().plus(Duration.ofHours(1))));
    once.intents().register(dev.onceonly.IntentKey.of("tenant-1", "pending-1"), "ship", Map.of());
    clock.advance(Duration.ofSeconds(90));
    reopen();

    try (StoreGauges gauges = StoreGauges.of(once.maintenance(), Duration.ofHours(1))) {
      gauges.bindTo(registry);
      Map<String, Double> expected = new TreeMap<>();
      expected.put("onceonly.intents.pending", 1.0);
      expected.put("onceonly.intents.oldest.pending.age", 90.0);
      expected.put("onceonly.queue.oldest.due.age", 90.0);
      expected.put("onceonly.external.unknown", 1.0);
      expected.put("onceonly.status.failures", 0.0);
      expected.put("onceonly.queue.messages{queue=jobs,state=due}", 1.0);
      expected.put("onceonly.queue.messages{queue=jobs,state=leased}", 1.0);
      expected.put("onceonly.queue.messages{queue=jobs,state=delayed}", 1.0);
      expected.put("onceonly.queue.dead.letters{queue=jobs}", 1.0);
      assertThat(meters()).isEqualTo(expected);

      // The rows change under it; the next sample shows them.
      exec("DELETE FROM onceonly_messages", "DELETE FROM onceonly_dead_letters");
      gauges.sample();
      assertThat(meters())
          .containsEntry("onceonly.queue.messages{queue=jobs,state=due}", 0.0)
          .containsEntry("onceonly.queue.messages{queue=jobs,state=leased}", 0.0)
          .containsEntry("onceonly.queue.dead.letters{queue=jobs}", 0.0)
          .containsEntry("onceonly.queue.oldest.due.age", 0.0);
    }
  }

  /** Every meter as name{tags} = its count (counters, timers, summaries) or value (gauges). */
  private Map<String, Double> meters() {
    Map<String, Double> out = new TreeMap<>();
    for (Meter m : registry.getMeters()) {
      StringBuilder id = new StringBuilder(m.getId().getName());
      if (!m.getId().getTags().isEmpty()) {
        id.append('{');
        m.getId()
            .getTags()
            .forEach(t -> id.append(t.getKey()).append('=').append(t.getValue()).append(','));
        id.setCharAt(id.length() - 1, '}');
      }
      double value =
          m.match(
              g -> g.value(),
              c -> c.count(),
              t -> (double) t.count(),
              s -> (double) s.count(),
              ltt -> (double) ltt.activeTasks(),
              tg -> tg.value(java.util.concurrent.TimeUnit.SECONDS),
              fc -> fc.count(),
              ft -> ft.count(),
              other -> Double.NaN);
      out.put(id.toString(), value);
    }
    return out;
  }
}
