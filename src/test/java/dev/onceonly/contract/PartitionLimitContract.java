package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.testing.Race;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A queue's limit per partition on every dialect, enforced by the database: each partition leases
 * at most its limit at once over every instance, while other partitions and messages of no
 * partition are claimed past a full one; an acknowledgement, a retry or a lease that runs out frees
 * room; sixteen threads of two instances claiming at once never hold more than the limit in any
 * partition; a dead letter keeps its partition through a requeue.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class PartitionLimitContract extends QueueContractSupport {
  private static final Duration LEASE = Duration.ofMinutes(1);
  private static final String Q = "reports";

  @BeforeEach
  void declareTheLimit() {
    once.close();
    once = open(db.builder().clock(clock));
  }

  private OnceOnly open(OnceOnlyBuilder builder) {
    return builder.concurrencyLimitPerPartition(Q, 2).build();
  }

  private void send(String partition, int n) {
    for (int i = 0; i < n; i++) {
      once.queue()
          .send(
              Message.of(Q, (partition == null ? "none" : partition) + "-" + i, i)
                  .partition(partition))
          .orThrow();
    }
  }

  /** The messages claimed (and not acknowledged) per partition, read from the rows. */
  private Map<String, Long> claimedPerPartition() {
    Map<String, Long> out = new java.util.TreeMap<>();
    for (String p : List.of("a", "b", "c", "d")) {
      long n =
          db.count(
              "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND partition_key = ?"
                  + " AND leased = 1",
              Q,
              p);
      if (n > 0) {
        out.put(p, n);
      }
    }
    return out;
  }

  private static Map<String, Long> byPartition(List<Delivery> got) {
    return got.stream()
        .collect(
            Collectors.groupingBy(
                d -> d.lease().key().substring(0, d.lease().key().indexOf('-')),
                java.util.TreeMap::new,
                Collectors.counting()));
  }

  @Test
  void aFullPartitionWaitsWhileOtherPartitionsAndUnpartitionedMessagesAreClaimed() {
    send("a", 5);
    send("b", 3);
    send(null, 2);
    List<Delivery> first = once.queue().receive(Q, 20, LEASE);
    assertThat(byPartition(first)).isEqualTo(Map.of("a", 2L, "b", 2L, "none", 2L));
    assertThat(claimedPerPartition()).isEqualTo(Map.of("a", 2L, "b", 2L));
    assertThat(once.queue().receive(Q, 20, LEASE)).as("both partitions are full").isEmpty();

    Delivery a = first.stream().filter(d -> d.lease().key().startsWith("a")).findFirst().get();
    once.queue().ack(a.lease());
    assertThat(byPartition(once.queue().receive(Q, 20, LEASE)))
        .as("an acknowledgement frees one room in its partition only")
        .isEqualTo(Map.of("a", 1L));

    Delivery b = first.stream().filter(d -> d.lease().key().startsWith("b")).findFirst().get();
    once.queue().nack(b.lease(), "later"); // waiting for its retry, it holds no room
    assertThat(byPartition(once.queue().receive(Q, 20, LEASE))).isEqualTo(Map.of("b", 1L));

    clock.advance(LEASE.plusSeconds(1)); // every lease ran out: their rooms are free again
    once.close();
    once = open(db.builder().clock(clock));
    assertThat(byPartition(once.queue().receive(Q, 20, LEASE)))
        .isEqualTo(Map.of("a", 2L, "b", 2L, "none", 2L));
  }

  /**
   * A partition with thousands of due messages ahead of another's: once it is full, the claim skips
   * its backlog instead of reading through it, and the other partition's message is claimed.
   */
  @Test
  void aHotPartitionsBacklogDoesNotHoldBackAnotherPartition() {
    List<Message> hot = new java.util.ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      hot.add(Message.of(Q, "hot-" + i, i).partition("hot"));
    }
    once.queue().sendAll(hot);
    once.queue().send(Message.of(Q, "cold-0", 0).partition("cold")).orThrow();
    assertThat(once.queue().receive(Q, 5, LEASE))
        .extracting(d -> d.lease().key())
        .containsExactlyInAnyOrder("hot-0", "hot-1", "cold-0");
    assertThat(once.queue().receive(Q, 5, LEASE)).isEmpty();
  }

  @Test
  void withinAPartitionTheHigherPriorityIsClaimedFirst() {
    once.queue().send(Message.of(Q, "a-low", 1).partition("a")).orThrow();
    once.queue().send(Message.of(Q, "a-high", 2).partition("a").priority(5)).orThrow();
    once.queue().send(Message.of(Q, "a-mid", 3).partition("a").priority(1)).orThrow();
    List<Delivery> got = once.queue().receive(Q, 20, LEASE);
    assertThat(got).extracting(d -> d.lease().key()).containsExactly("a-high", "a-mid");
  }

  /**
   * Two instances, eight threads each, claim at once over four partitions: together they hold two
   * leases per partition. Each partition has older messages of priority 0 and newer ones of
   * priority 5, so that a claim by priority and a claim of the oldest (one in four) pick different
   * rows: without the lock on PostgreSQL both count the same room and both take it.
   */
  @Test
  void sixteenThreadsOfTwoInstancesHoldNoMoreThanTheLimitInAnyPartition() throws Exception {
    for (String p : List.of("a", "b", "c", "d")) {
      for (int i = 0; i < 12; i++) {
        once.queue()
            .send(Message.of(Q, p + "-" + i, i).partition(p).priority(i < 6 ? 0 : 5))
            .orThrow();
      }
    }
    OnceOnly other = open(db.builder().clock(clock));
    try {
      for (int round = 0; round < 5; round++) { // each round acknowledges what it claimed
        List<List<Delivery>> got =
            Race.run(16, t -> () -> (t % 2 == 0 ? once : other).queue().receive(Q, 3, LEASE));
        assertThat(claimedPerPartition())
            .as("round %d", round)
            .isEqualTo(Map.of("a", 2L, "b", 2L, "c", 2L, "d", 2L));
        List<Delivery> all = got.stream().flatMap(List::stream).toList();
        assertThat(all).hasSize(8);
        all.forEach(d -> once.queue().ack(d.lease()).orThrow());
      }
    } finally {
      other.close();
    }
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages WHERE queue = ?", Q))
        .isEqualTo(48 - 5 * 8);
  }

  @Test
  void aQueueLimitBoundsTheTotalOfItsPartitions() {
    once.close();
    once = open(db.builder().clock(clock).concurrencyLimit(Q, 3));
    send("a", 4);
    send("b", 4);
    assertThat(once.queue().receive(Q, 20, LEASE)).hasSize(3);
    assertThat(once.queue().receive(Q, 20, LEASE)).isEmpty();
    assertThat(claimedPerPartition().values()).allMatch(n -> n <= 2);
  }

  @Test
  void aDeadLetterKeepsItsPartitionThroughARequeue() {
    send("a", 3);
    List<Delivery> first = once.queue().receive(Q, 20, LEASE);
    assertThat(first).hasSize(2);
    once.queue().deadLetter(first.get(0).lease(), "broken");
    String key = first.get(0).lease().key();
    once.close();
    once = open(db.builder().clock(clock)); // reopened: the dead letter is on disk
    assertThat(
            db.count(
                "SELECT COUNT(*) FROM onceonly_dead_letters WHERE message_key = ?"
                    + " AND partition_key = 'a'",
                key))
        .isEqualTo(1);
    assertThat(once.queue().requeue(Q, key)).isTrue();
    assertThat(
            db.count(
                "SELECT COUNT(*) FROM onceonly_messages WHERE message_key = ?"
                    + " AND partition_key = 'a'",
                key))
        .isEqualTo(1);
    // The partition holds one lease and two due messages (the third and the requeued one): one
    // more.
    assertThat(once.queue().receive(Q, 20, LEASE)).hasSize(1);
  }

  @Test
  void aPartitionMustBeANameAndTheLimitPositive() {
    assertThatThrownBy(() -> Message.of(Q, "k", 1).partition(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("partition must be 1 to 200 characters, or null for none");
    assertThatThrownBy(() -> Message.of(Q, "k", 1).partition("x".repeat(201)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Message.of(Q, "k", 1).partition("a\nb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("partition must not hold a control character");
    assertThatThrownBy(() -> OnceOnly.builder().concurrencyLimitPerPartition(Q, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxLeasedPerPartition must be between 1 and 100000");
    assertThat(Message.of(Q, "k", 1).partition("tenant-42").partition()).isEqualTo("tenant-42");
  }
}
