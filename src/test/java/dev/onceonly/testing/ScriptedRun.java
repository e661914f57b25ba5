package dev.onceonly.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.external.Claim;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.Failure;
import dev.onceonly.external.Settlement;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.SendResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One run through every outcome an operator watches, with known counts: a created step, a repeated
 * one and a conflict; a sent message sent again, claimed and acknowledged; another claimed and
 * dead-lettered; an external claim whose attempt ends unknown, then claimed again (unknown).
 */
public final class ScriptedRun {
  /** The receipt operation of the run. */
  public static final String OPERATION = "charge";

  /** The queue of the run. */
  public static final String QUEUE = "jobs";

  /** The external operation of the run. */
  public static final String EXTERNAL = "pay";

  private ScriptedRun() {}

  /** Runs the script on {@code once}, asserting each answer on the way. */
  public static void run(OnceOnly once) {
    IntentKey key = IntentKey.of("tenant-1", "order-1");
    assertThat(step(once, key, 1)).isInstanceOf(Outcome.Created.class);
    assertThat(step(once, key, 1)).isInstanceOf(Outcome.Repeated.class);
    assertThat(step(once, key, 2)).isInstanceOf(Outcome.Conflict.class);

    assertThat(once.queue().send(QUEUE, "m1", Map.of("n", 1)).status())
        .isEqualTo(SendResult.Status.SENT);
    assertThat(once.queue().send(QUEUE, "m1", Map.of("n", 1)).status())
        .isEqualTo(SendResult.Status.REPEATED);
    Delivery first = only(once.queue().receive(QUEUE, 10, Duration.ofMinutes(1)));
    assertThat(once.queue().ack(first.lease())).isInstanceOf(QueueResult.Completed.class);
    once.queue().send(QUEUE, "m2", Map.of("n", 2));
    Delivery second = only(once.queue().receive(QUEUE, 10, Duration.ofMinutes(1)));
    assertThat(once.queue().deadLetter(second.lease(), "no such customer"))
        .isInstanceOf(QueueResult.DeadLettered.class);

    IntentKey payment = IntentKey.of("tenant-1", "payment-1");
    ClaimOutcome claimed =
        once.externalEffects()
            .claim(payment, EXTERNAL, Map.of("cents", 100), Duration.ofMinutes(1));
    Claim claim = ((ClaimOutcome.Claimed) claimed).claim();
    assertThat(once.externalEffects().fail(claim, Failure.unknownAfterSend("timeout")))
        .isInstanceOf(Settlement.Unknown.class);
    assertThat(
            once.externalEffects()
                .claim(payment, EXTERNAL, Map.of("cents", 100), Duration.ofMinutes(1)))
        .isInstanceOf(ClaimOutcome.Unknown.class);
  }

  private static Outcome<String> step(OnceOnly once, IntentKey key, int n) {
    return once.receipts().execute(key, OPERATION, Map.of("n", n), String.class, tx -> "done");
  }

  private static Delivery only(List<Delivery> deliveries) {
    assertThat(deliveries).hasSize(1);
    return deliveries.get(0);
  }
}
