package dev.onceonly.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.onceonly.ArgumentsValidator;
import dev.onceonly.IntentKey;
import dev.onceonly.IntentPublisher;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.testing.Drain;
import dev.onceonly.testing.DrainStep;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.OnceOnlyAssertions;
import dev.onceonly.testing.OnceOnlyExtension;
import dev.onceonly.testing.Reopen;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The extension on a field, with its own start and settings, and the rows after a restart. */
class OnceOnlyExtensionTest {
  /** The application's rule for a charge: a positive amount, when it names one. */
  static final ArgumentsValidator chargeRules =
      args -> {
        if (args.has("cents") && args.get("cents").asLong() <= 0) {
          throw new InvalidRequestException("cents", "must be > 0");
        }
      };

  // ---- docs/testing.md, the extension on a field ----
  @RegisterExtension
  final OnceOnlyExtension store =
      OnceOnlyExtension.sqlite()
          .startingAt(Instant.parse("2030-05-01T12:00:00Z"))
          .configure(b -> b.resultRetention(Duration.ofDays(2)).validator("charge", chargeRules));

  // ---- end ----

  @Test
  void theConfiguredValidatorRefusesAChargeAndNothingIsWritten(OnceOnly once, Reopen reopen)
      throws Exception {
    Charges.createTable(once);
    assertThatThrownBy(
            () ->
                once.receipts()
                    .execute(
                        ChargeHandler.key("o-9"),
                        "charge",
                        Map.of("order", "o-9", "cents", 0),
                        Long.class,
                        tx -> Charges.insert(tx, "o-9", 0)))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("cents");
    OnceOnly again = reopen.reopen();
    assertThat(Charges.count(again, "o-9")).isZero();
    assertThat(again.receipts().find(ChargeHandler.key("o-9"))).isEmpty();
  }

  @Test
  void theClockIsTheStoresAndTheTestMovesIt(OnceOnly once, MutableClock clock) {
    assertThat(clock.instant()).isEqualTo(Instant.parse("2030-05-01T12:00:00Z"));
    assertThat(once.maintenance().status().at()).isEqualTo(clock.instant());
    clock.advance(Duration.ofHours(3));
    assertThat(once.maintenance().status().at()).isEqualTo(Instant.parse("2030-05-01T15:00:00Z"));
  }

  @Test
  void reopenKeepsWhatWasCommittedOnTheSameFile(OnceOnly once, Reopen reopen) throws Exception {
    Charges.createTable(once);
    once.receipts()
        .execute(
            ChargeHandler.key("o-1"),
            "charge",
            Map.of("order", "o-1"),
            Long.class,
            tx -> Charges.insert(tx, "o-1", 5));
    Path file = store.file().orElseThrow();
    OnceOnly again = reopen.reopen();
    assertThat(again).isSameAs(reopen.current()).isSameAs(store.once()).isNotSameAs(once);
    assertThat(store.file()).contains(file);
    assertThat(again.receipts().find(ChargeHandler.key("o-1"))).isPresent();
    assertThat(Charges.count(again, "o-1")).isEqualTo(1);
    assertThatThrownBy(() -> once.receipts().find(ChargeHandler.key("o-1")))
        .as("the instance before the restart is closed")
        .isInstanceOf(RuntimeException.class);
  }

  @Test
  void theAssertionsNameWhatTheyFound(OnceOnly once, MutableClock clock) throws Exception {
    Charges.createTable(once);
    IntentKey key = ChargeHandler.key("o-2");
    assertThatThrownBy(() -> OnceOnlyAssertions.assertOnce(once, key, 0))
        .isInstanceOf(AssertionError.class)
        .hasMessage(
            "key charges/o-2: expected one receipt and its effect once, found no receipt"
                + " and 0 effects");
    once.intents().register(key, "charge", Map.of("order", "o-2"));
    assertThatThrownBy(() -> OnceOnlyAssertions.assertNoPendingIntents(once))
        .hasMessage("expected no pending intent, found 1: charges/o-2");

    once.queue().send("charges", "o-2", Map.of("order", "o-2", "cents", 1));
    Handler refuses =
        job -> {
          throw new InvalidRequestException("cents", "must be > 1");
        };
    List<DrainStep> steps = Drain.of(once.queue(), "charges", refuses).run();
    assertThat(steps).singleElement().satisfies(s -> assertThat(s.deadLettered()).isTrue());
    assertThat(steps.get(0).failure()).containsInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> OnceOnlyAssertions.assertNoDeadLetters(once, "charges"))
        .hasMessageStartingWith("expected no dead letter in queue charges, found: o-2 after 1");
    assertThatThrownBy(() -> OnceOnlyAssertions.assertNoDeadLetters(once))
        .hasMessage("expected no dead letter, found per queue: {charges=1}");
  }

  @Test
  void withoutTheClockTheDrainStopsAtWhatIsDueNow(OnceOnly once, MutableClock clock) {
    once.queue().send("charges", "o-3", Map.of("order", "o-3", "cents", 1));
    Handler fails =
        job -> {
          throw new IllegalStateException("down");
        };
    List<DrainStep> steps = Drain.of(once.queue(), "charges", fails).run();
    assertThat(steps).singleElement().satisfies(s -> assertThat(s.retried()).isTrue());
    QueueResult.Retrying retry = (QueueResult.Retrying) steps.get(0).result();
    assertThat(retry.nextAttemptAt()).isAfterOrEqualTo(clock.instant());
    assertThat(once.queue().depth("charges")).isEqualTo(1);

    // moving the clock: every attempt of the default policy (5), the last one dead-lettered
    // when its retry would be due
    List<DrainStep> rest = Drain.of(once.queue(), "charges", fails).movingClock(clock).run();
    assertThat(rest).hasSize(4);
    assertThat(rest.get(3).deadLettered()).isTrue();
    assertThat(once.queue().depth("charges")).isZero();
    assertThat(once.queue().findDeadLetter("charges", "o-3")).isPresent();
  }

  @Test
  void theReconcilerDrainSaysWhatItPublished(OnceOnly once) {
    once.intents().register(IntentKey.of("shop", "a"), "charge", Map.of("order", "a"));
    once.intents().register(IntentKey.of("shop", "b"), "charge", Map.of("order", "b"));
    List<Drain.Republished> published =
        Drain.reconcile(once.intents(), intent -> IntentPublisher.Publication.PUBLISHED);
    assertThat(published)
        .extracting(r -> r.key().key(), Drain.Republished::publication)
        .containsExactly(
            tuple("a", IntentPublisher.Publication.PUBLISHED),
            tuple("b", IntentPublisher.Publication.PUBLISHED));
  }

  @Test
  void aHandlerThatReschedulesForeverIsStopped(OnceOnly once, MutableClock clock) {
    once.queue().send("charges", "o-4", Map.of());
    Handler forever = job -> job.retryAt(clock.instant().plusSeconds(60));
    assertThatThrownBy(
            () -> Drain.of(once.queue(), "charges", forever).movingClock(clock).maxSteps(5).run())
        .isInstanceOf(AssertionError.class)
        .hasMessage("queue charges still has due messages after 5 deliveries");
  }

  @Test
  void theDrainRecordsWhatTheWorkerWouldForLaterWorkAndLostLeases(OnceOnly once) {
    once.queue().send("charges", "o-5", Map.of("order", "o-5"));
    Handler laterFails =
        job ->
            job.completeLater(
                tx -> {
                  throw new IllegalStateException("the later work failed");
                });
    List<DrainStep> steps = Drain.of(once.queue(), "charges", laterFails).run();
    assertThat(steps).singleElement().satisfies(s -> assertThat(s.retried()).isTrue());
    assertThat(once.queue().depth("charges")).as("the message stays for its retry").isEqualTo(1);

    once.queue().send("other", "o-6", Map.of("order", "o-6"));
    Handler withdrawsItsOwn = job -> once.queue().withdraw("other", job.delivery().key());
    List<DrainStep> lost = Drain.of(once.queue(), "other", withdrawsItsOwn).run();
    assertThat(lost).singleElement().satisfies(s -> assertThat(s.leaseLost()).isTrue());
    assertThat(once.queue().depth("other")).isZero();
  }
}
