package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Message priorities on every dialect: higher first among due messages, in due order within one
 * priority, kept through a dead letter and its requeue; and the no-starvation rule, one claim in
 * four taking the oldest due messages whatever their priority.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class PrioritiesContract extends QueueContractSupport {
  private static final Duration LEASE = Duration.ofMinutes(5);
  private static final String Q = "tickets";

  private void send(String key, int priority) {
    once.queue().send(Message.of(Q, key, key).priority(priority)).orThrow();
    clock.advance(Duration.ofMillis(1));
  }

  private List<String> claim(int max) {
    List<String> keys = new ArrayList<>();
    for (Delivery d : once.queue().receive(Q, max, LEASE)) {
      keys.add(d.lease().key());
      once.queue().ack(d.lease());
    }
    return keys;
  }

  @Test
  void higherPriorityFirstAndDueOrderWithinOne() {
    send("low-1", 0);
    send("urgent-1", 10);
    send("low-2", 0);
    send("normal-1", 5);
    send("urgent-2", 10);
    send("background-1", -5);
    once.queue()
        .send(
            Message.of(Q, "urgent-later", 1)
                .priority(10)
                .deliverAt(clock.instant().plusSeconds(60)));
    reopen();
    assertThat(claim(10))
        .containsExactly("urgent-1", "urgent-2", "normal-1", "low-1", "low-2", "background-1");
  }

  @Test
  void oneClaimInFourTakesTheOldestSoALowPriorityMessageIsNotStarved() {
    send("low", -1);
    int claimsUntilLow = 0;
    boolean lowClaimed = false;
    for (int round = 0; round < 20 && !lowClaimed; round++) {
      send("high-" + round + "-a", 1); // a steady stream: two new ones per claim of one
      send("high-" + round + "-b", 1);
      claimsUntilLow++;
      lowClaimed = claim(1).contains("low");
    }
    assertThat(lowClaimed).as("the low-priority message was claimed").isTrue();
    assertThat(claimsUntilLow).isLessThanOrEqualTo(4);
  }

  @Test
  void aDeadLetterKeepsItsPriorityThroughRequeue() {
    send("first", 0);
    send("vip", 7);
    Delivery vip = once.queue().receive(Q, 1, LEASE).get(0);
    assertThat(vip.lease().key()).isEqualTo("vip");
    once.queue().deadLetter(vip.lease(), "refused");
    assertThat(db.count("SELECT priority FROM onceonly_dead_letters WHERE message_key = 'vip'"))
        .isEqualTo(7);
    assertThat(once.queue().requeue(Q, "vip")).isTrue();
    reopen();
    assertThat(db.count("SELECT priority FROM onceonly_messages WHERE message_key = 'vip'"))
        .isEqualTo(7);
    assertThat(claim(10)).containsExactly("vip", "first");
  }

  @Test
  void aPriorityOutOfRangeIsRefused() {
    assertThatThrownBy(() -> Message.of(Q, "k", 1).priority(1001))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("priority must be between -1000 and 1000");
    assertThat(messages(Q)).isZero();
  }
}
