package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Uniqueness;
import dev.onceonly.testing.Race;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Uniqueness windows on every dialect: a queue whose keys stay taken for an hour after each send
 * answers a second send within the hour {@code REPEATED} (or {@code CONFLICT}) with nothing
 * written, even after the first message was acknowledged, and sends again after it; sixteen threads
 * racing inside and after the window; a queue whose dead letters keep their keys. Counted from the
 * rows.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class UniquenessContract extends QueueContractSupport {
  private static final Duration LEASE = Duration.ofMinutes(1);
  private static final Duration HOUR = Duration.ofHours(1);

  @BeforeEach
  void declareUniqueness() {
    once.close();
    once = open();
  }

  private OnceOnly open() {
    return db.builder()
        .clock(clock)
        .uniqueness("reports", Uniqueness.forPeriod(HOUR))
        .uniqueness("tickets", Uniqueness.whileQueued().includingDeadLetters())
        .build();
  }

  private void handle(String queue) {
    List<Delivery> got = once.queue().receive(queue, 10, LEASE);
    assertThat(got).hasSize(1);
    once.queue().ack(got.get(0).lease());
  }

  private SendResult.Status send(String queue, String key, Object payload) {
    return once.queue().send(queue, key, payload).status();
  }

  @Test
  void aKeyStaysTakenForItsPeriodAfterItsMessageWasHandled() {
    assertThat(send("reports", "daily-1", Map.of("day", 1))).isEqualTo(SendResult.Status.SENT);
    handle("reports");
    assertThat(messages("reports")).isZero();

    once.close();
    once = open(); // the window is in the database, not in memory
    clock.advance(Duration.ofMinutes(59));
    assertThat(send("reports", "daily-1", Map.of("day", 1))).isEqualTo(SendResult.Status.REPEATED);
    assertThat(send("reports", "daily-1", Map.of("day", 2))).isEqualTo(SendResult.Status.CONFLICT);
    assertThat(messages("reports")).isZero();
    // Another queue keeps the default: its key is free once its message is gone.
    assertThat(send("mail", "daily-1", 1)).isEqualTo(SendResult.Status.SENT);
    handle("mail");
    assertThat(send("mail", "daily-1", 1)).isEqualTo(SendResult.Status.SENT);

    clock.advance(Duration.ofMinutes(1));
    assertThat(send("reports", "daily-1", Map.of("day", 2))).isEqualTo(SendResult.Status.SENT);
    assertThat(messages("reports")).isOne();
    assertThat(db.strings("SELECT payload FROM onceonly_messages WHERE queue = 'reports'"))
        .containsExactly("{\"day\":2}");
  }

  @Test
  void sixteenThreadsInsideTheWindowSendNothingAndAfterItSendOnce() throws Exception {
    send("reports", "weekly", 1);
    handle("reports");
    List<SendResult.Status> inside =
        Race.run(16, t -> () -> once.queue().send("reports", "weekly", 1).status());
    assertThat(inside).containsOnly(SendResult.Status.REPEATED);
    assertThat(messages("reports")).isZero();

    clock.advance(HOUR);
    List<SendResult.Status> after =
        Race.run(16, t -> () -> once.queue().send("reports", "weekly", 1).status());
    assertThat(after).containsOnly(SendResult.Status.SENT, SendResult.Status.REPEATED);
    assertThat(after).filteredOn(s -> s == SendResult.Status.SENT).hasSize(1);
    assertThat(messages("reports")).isOne();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_unique_keys WHERE message_key = 'weekly'"))
        .isOne();
  }

  @Test
  void aDeadLetterKeepsItsKeyTakenUntilItIsRequeued() {
    send("tickets", "t-1", Map.of("n", 1));
    Delivery d = once.queue().receive("tickets", 1, LEASE).get(0);
    once.queue().deadLetter(d.lease(), "poison");
    assertThat(send("tickets", "t-1", Map.of("n", 1))).isEqualTo(SendResult.Status.REPEATED);
    assertThat(send("tickets", "t-1", Map.of("n", 2))).isEqualTo(SendResult.Status.CONFLICT);
    assertThat(messages("tickets")).isZero();

    assertThat(once.queue().requeue("tickets", "t-1")).isTrue();
    handle("tickets");
    assertThat(send("tickets", "t-1", Map.of("n", 2))).isEqualTo(SendResult.Status.SENT);
    // Without the declaration, a dead letter leaves its key free.
    send("mail", "m-1", 1);
    once.queue().deadLetter(once.queue().receive("mail", 1, LEASE).get(0).lease(), "poison");
    assertThat(send("mail", "m-1", 1)).isEqualTo(SendResult.Status.SENT);
  }
}
