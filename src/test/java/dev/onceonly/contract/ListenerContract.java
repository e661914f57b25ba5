package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.events.OnceOnlyListener;
import dev.onceonly.testing.LogCapture;
import dev.onceonly.testing.ScriptedRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The events SPI: every outcome of a scripted run reaches the listeners once, after its work, and a
 * listener that throws or blocks changes no outcome and slows no step. Outcomes are asserted on the
 * rows after reopening the store.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class ListenerContract extends ContractSupport {
  @RegisterExtension final LogCapture log = LogCapture.of(Events.class);

  private final List<OnceOnlyEvent> heard = new CopyOnWriteArrayList<>();

  @Test
  void everyOutcomeOfAScriptedRunIsPublishedOnce() {
    start(b -> b.listener(heard::add));
    ScriptedRun.run(once);
    assertThat(once.events().drain(Duration.ofSeconds(10))).isTrue();

    assertThat(kinds(OnceOnlyEvent.StepFinished.class))
        .containsExactly("charge created", "charge repeated", "charge conflict");
    assertThat(of(OnceOnlyEvent.StepFinished.class)).allMatch(e -> e.scope() == null);
    assertThat(kinds(OnceOnlyEvent.MessageSent.class))
        .containsExactly("jobs sent", "jobs repeated", "jobs sent");
    assertThat(kinds(OnceOnlyEvent.MessagesClaimed.class)).containsExactly("jobs 1", "jobs 1");
    assertThat(kinds(OnceOnlyEvent.MessageSettled.class))
        .containsExactly("jobs completed 0", "jobs dead_lettered 1");
    assertThat(kinds(OnceOnlyEvent.ClaimAnswered.class))
        .containsExactly("pay claimed", "pay unknown");
    assertThat(kinds(OnceOnlyEvent.ClaimSettled.class)).containsExactly("pay unknown");
    assertRowsOfTheScript();
  }

  @Test
  void aScheduleSlotFiredIsPublishedOnceAfterTheClaimThatSentItsRun() {
    start(b -> b.listener(heard::add));
    OnceOnly other = track(open(clock, b -> b.listener(heard::add)));
    once.schedules()
        .register(
            "tick",
            "ticks",
            dev.onceonly.queue.ScheduleSpec.fixedRate(Duration.ofMinutes(1)),
            Map.of("n", 1));
    clock.advance(Duration.ofMinutes(2));
    List<dev.onceonly.queue.Delivery> runs =
        once.queue().receive("ticks", 10, Duration.ofMinutes(5));
    assertThat(other.queue().receive("ticks", 10, Duration.ofMinutes(5))).isEmpty();
    assertThat(once.events().drain(Duration.ofSeconds(10))).isTrue();
    assertThat(other.events().drain(Duration.ofSeconds(10))).isTrue();

    List<OnceOnlyEvent.ScheduleFired> fired = of(OnceOnlyEvent.ScheduleFired.class);
    assertThat(fired).isNotEmpty().allMatch(f -> f.schedule().equals("tick"));
    assertThat(fired).allMatch(f -> f.queue().equals("ticks"));
    assertThat(runs)
        .extracting(dev.onceonly.queue.Delivery::key)
        .containsExactlyElementsOf(
            fired.stream()
                .map(f -> dev.onceonly.queue.Schedule.runKey(f.schedule(), f.slot()))
                .toList());
    reopen();
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages WHERE queue = 'ticks'"))
        .isEqualTo(fired.size());
  }

  @Test
  void scopesArePublishedOnlyWhenAskedFor() {
    start(b -> b.listener(heard::add).listenerSeesScopes(true));
    ScriptedRun.run(once);
    assertThat(once.events().drain(Duration.ofSeconds(10))).isTrue();
    assertThat(of(OnceOnlyEvent.StepFinished.class)).allMatch(e -> "tenant-1".equals(e.scope()));
  }

  @Test
  void aThrowingListenerChangesNoOutcomeIsLoggedOnceAndTheNextListenerHearsEverything() {
    OnceOnlyListener throwing =
        e -> {
          throw new IllegalStateException("listener bug");
        };
    start(b -> b.listener(throwing).listener(heard::add));
    ScriptedRun.run(once);
    assertThat(once.events().drain(Duration.ofSeconds(10))).isTrue();

    assertThat(of(OnceOnlyEvent.StepFinished.class)).hasSize(3);
    assertThat(of(OnceOnlyEvent.ClaimAnswered.class)).hasSize(2);
    List<String> warnings =
        log.at(Level.WARNING).stream().map(r -> r.getMessage()).collect(Collectors.toList());
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0)).contains("threw on").contains("later failures are logged at DEBUG");
    assertThat(log.at(Level.FINE)).isNotEmpty(); // DEBUG is java.util.logging's FINE
    assertRowsOfTheScript();
  }

  @Test
  void aBlockingListenerSlowsNoStepAndItsDropsAreCountedAndLogged() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch blocked = new CountDownLatch(1);
    OnceOnlyListener blocking =
        e -> {
          blocked.countDown();
          try {
            release.await();
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
          }
        };
    OnceOnly plain = track(open(clock, b -> {}));
    start(b -> b.listener(blocking).listenerBuffer(16));
    int steps = 300;
    long[] without = timeSteps(plain, "plain", steps);
    long[] with = timeSteps(once, "blocked", steps);
    assertThat(blocked.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

    long medianWithout = median(without);
    long medianWith = median(with);
    System.out.printf(
        "step median without a listener %d us, with a blocked listener %d us (%s)%n",
        medianWithout / 1000, medianWith / 1000, once.dialect());
    // Generous: the shared machine's noise, not the listener, is what this bound allows for.
    assertThat(medianWith).isLessThan(3 * medianWithout + Duration.ofMillis(5).toNanos());
    // Accepted: the buffer's 16, the event the blocked listener holds, and the events the thread
    // had drained from the buffer with it into its batch (at most another 16).
    assertThat(once.events().dropped()).isGreaterThanOrEqualTo(steps - 16 - 1 - 16);
    assertThat(log.at(Level.WARNING))
        .isNotEmpty()
        .allMatch(r -> r.getMessage().contains("dropped so far"));
    // Logged at 1, 2, 4, 8 ... drops, not at every one.
    assertThat(log.at(Level.WARNING).size())
        .isLessThanOrEqualTo(64 - Long.numberOfLeadingZeros(once.events().dropped()) + 1);

    long closing = System.nanoTime();
    once.close(); // the listener still blocks: close gives up on it after its bound
    assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(5));
    release.countDown();

    reopen();
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts WHERE scope = 'blocked'"))
        .isEqualTo(steps);
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts WHERE scope = 'plain'"))
        .isEqualTo(steps);
  }

  /** Runs {@code n} created steps one after another; returns each one's time in nanoseconds. */
  private static long[] timeSteps(OnceOnly instance, String scope, int n) {
    long[] times = new long[n];
    for (int i = 0; i < n; i++) {
      long t = System.nanoTime();
      Outcome<String> o =
          instance
              .receipts()
              .execute(
                  IntentKey.of(scope, "k" + i),
                  "timed",
                  Map.of("i", i),
                  String.class,
                  tx -> "done");
      times[i] = System.nanoTime() - t;
      assertThat(o).isInstanceOf(Outcome.Created.class);
    }
    return times;
  }

  private static long median(long[] times) {
    long[] sorted = times.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private void assertRowsOfTheScript() {
    reopen();
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isEqualTo(1);
    assertThat(strings("SELECT state FROM onceonly_claims")).containsExactly("UNKNOWN");
  }

  private <E extends OnceOnlyEvent> List<E> of(Class<E> type) {
    List<E> out = new ArrayList<>();
    for (OnceOnlyEvent e : heard) {
      if (type.isInstance(e)) {
        out.add(type.cast(e));
      }
    }
    return out;
  }

  private List<String> kinds(Class<? extends OnceOnlyEvent> type) {
    return of(type).stream().map(ListenerContract::describe).toList();
  }

  private static String describe(OnceOnlyEvent e) {
    if (e instanceof OnceOnlyEvent.StepFinished s) {
      return s.operation() + " " + s.outcome();
    } else if (e instanceof OnceOnlyEvent.MessageSent s) {
      return s.queue() + " " + s.status();
    } else if (e instanceof OnceOnlyEvent.MessagesClaimed c) {
      return c.queue() + " " + c.count();
    } else if (e instanceof OnceOnlyEvent.MessageSettled s) {
      return s.queue() + " " + s.result() + " " + s.attempts();
    } else if (e instanceof OnceOnlyEvent.ClaimAnswered a) {
      return a.operation() + " " + a.outcome();
    } else if (e instanceof OnceOnlyEvent.ClaimSettled s) {
      return s.operation() + " " + s.outcome();
    }
    return e.toString();
  }
}
