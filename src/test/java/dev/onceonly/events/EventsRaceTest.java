package dev.onceonly.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.micrometer.OnceOnlyMetrics;
import dev.onceonly.testing.Race;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Many threads behind a start gate publish generated steps while they, and a thread of its own,
 * call {@link Events#drain}: every event reaches the listener exactly once, each drain finds the
 * caller's earlier events delivered, and the Micrometer meters add up to a reference counted from
 * the generated inputs.
 */
class EventsRaceTest {
  private static final int THREADS = 8;
  private static final int EACH = 5_000;
  private static final List<String> OPERATIONS = List.of("pay", "refund", "ship");
  private static final List<String> OUTCOMES =
      List.of("created", "repeated", "conflict", "expired", "failed");

  /** One thread's generated steps; the scope carries the step's identity. */
  private static List<OnceOnlyEvent.StepFinished> steps(int thread) {
    SplittableRandom random = new SplittableRandom(30L * 1000 + thread);
    List<OnceOnlyEvent.StepFinished> out = new ArrayList<>(EACH);
    for (int i = 0; i < EACH; i++) {
      out.add(
          new OnceOnlyEvent.StepFinished(
              OPERATIONS.get(random.nextInt(OPERATIONS.size())),
              OUTCOMES.get(random.nextInt(OUTCOMES.size())),
              thread + "-" + i,
              Duration.ofNanos(1 + random.nextInt(1_000_000))));
    }
    return out;
  }

  @Test
  void everyEventPublishedDuringDrainsArrivesOnceAndTheMetersAddUp() throws Exception {
    Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    OnceOnlyListener recorder =
        e -> {
          if (e instanceof OnceOnlyEvent.StepFinished s) {
            Thread.yield(); // a listener that takes its time: a drain must still wait for it
            seen.computeIfAbsent(s.scope(), unused -> new AtomicInteger()).incrementAndGet();
          }
        };
    List<List<OnceOnlyEvent.StepFinished>> generated = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      generated.add(steps(t));
    }
    try (Events events =
        Events.to(List.of(recorder, OnceOnlyMetrics.of(registry)), true, 1 << 17)) {
      List<Integer> lateDrains =
          Race.run(
              THREADS + 1,
              t ->
                  () ->
                      t == THREADS
                          ? drainUntil(events, seen)
                          : publish(events, generated, t, seen));
      assertThat(lateDrains).containsOnly(0);
      assertThat(events.drain(Duration.ofSeconds(30))).isTrue();
      assertThat(events.dropped()).isZero();
    }

    assertThat(seen).hasSize(THREADS * EACH);
    assertThat(seen.values()).allMatch(n -> n.get() == 1);
    Map<List<String>, long[]> reference =
        new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    for (List<OnceOnlyEvent.StepFinished> own : generated) {
      for (OnceOnlyEvent.StepFinished s : own) {
        long[] sum =
            reference.computeIfAbsent(List.of(s.operation(), s.outcome()), k -> new long[2]);
        sum[0]++;
        sum[1] += s.duration().toNanos();
      }
    }
    double total = 0;
    for (Map.Entry<List<String>, long[]> e : reference.entrySet()) {
      String[] tags = {"operation", e.getKey().get(0), "outcome", e.getKey().get(1)};
      Counter counter = registry.get("onceonly.receipts.outcomes").tags(tags).counter();
      Timer timer = registry.get("onceonly.receipts.step.duration").tags(tags).timer();
      assertThat(counter.count()).as("%s", e.getKey()).isEqualTo(e.getValue()[0]);
      assertThat(timer.count()).as("%s", e.getKey()).isEqualTo(e.getValue()[0]);
      assertThat(timer.totalTime(TimeUnit.NANOSECONDS)).isEqualTo((double) e.getValue()[1]);
      total += counter.count();
    }
    assertThat(total).isEqualTo(THREADS * EACH);
    assertThat(registry.get("onceonly.receipts.outcomes").counters()).hasSize(reference.size());
  }

  /**
   * Without any drain, events published by racing threads all arrive: a publisher wakes the events'
   * thread when it sleeps, and no wake-up is lost between its last look at the buffer and its
   * sleep.
   */
  @Test
  void eventsArriveWithoutADrain() throws Exception {
    Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    OnceOnlyListener recorder =
        e ->
            seen.computeIfAbsent(((OnceOnlyEvent.StepFinished) e).scope(), k -> new AtomicInteger())
                .incrementAndGet();
    try (Events events = Events.to(List.of(recorder), true, 1 << 17)) {
      for (int round = 0; round < 20; round++) {
        int r = round;
        Race.run(
            THREADS,
            t ->
                () -> {
                  for (int i = 0; i < 50; i++) {
                    events.publish(
                        new OnceOnlyEvent.StepFinished(
                            "op", "created", r + "-" + t + "-" + i, Duration.ZERO));
                  }
                  return null;
                });
        int expected = (r + 1) * THREADS * 50;
        dev.onceonly.testing.Eventually.await(
            Duration.ofSeconds(20), "round " + r + " delivered", () -> seen.size() == expected);
      }
    }
    assertThat(seen.values()).allMatch(n -> n.get() == 1);
  }

  /**
   * Publishes a thread's steps, draining every few hundred: each drain must find every step this
   * thread published before it delivered. Returns how many drains did not.
   */
  private static int publish(
      Events events,
      List<List<OnceOnlyEvent.StepFinished>> generated,
      int thread,
      Map<String, AtomicInteger> seen) {
    int late = 0;
    List<OnceOnlyEvent.StepFinished> own = generated.get(thread);
    for (int i = 0; i < own.size(); i++) {
      events.publish(own.get(i));
      if (i % 397 == 0) {
        boolean drained = events.drain(Duration.ofSeconds(30));
        for (int j = 0; j <= i; j++) {
          if (!drained || !seen.containsKey(own.get(j).scope())) {
            late++;
            break;
          }
        }
      }
    }
    return late;
  }

  /** Drains over and over until every generated step arrived; returns 1 if one timed out. */
  private static int drainUntil(Events events, Map<String, AtomicInteger> seen) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(50);
    while (seen.size() < THREADS * EACH) {
      if (!events.drain(Duration.ofSeconds(30)) || System.nanoTime() - deadline > 0) {
        return 1;
      }
      Thread.yield();
    }
    return 0;
  }
}
