package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.maintenance.QueueBreakdown;
import dev.onceonly.maintenance.QueuedMessage;
import dev.onceonly.maintenance.StoreStatus.QueueCounts;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueLimits;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The reads an operator's page makes of one queue: its messages counted by priority and partition
 * (compared with counts kept by the test from what it sent, received and delayed), one message
 * found by key with its lease and next attempt, the limits declared, and keys no send would accept
 * found and requeued exactly.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class QueueInspectionContract extends ContractSupport {
  private static final String Q = "jobs";
  private static final String HOSTILE = "ключ-\u0007-\u202E-é-\uD83D\uDE00-<b>-\n-'; --";

  /** Which group a message is in, as the test's own reference counts it. */
  private enum Where {
    DUE,
    LEASED,
    DELAYED
  }

  @Test
  void theBreakdownMatchesAReferenceOverGeneratedMessagesAfterReopening() {
    long seed = Long.getLong("onceonly.properties.seed", System.nanoTime());
    Random random = new Random(seed);
    start();
    Map<String, Where> where = new HashMap<>();
    Map<String, Integer> priorityOf = new HashMap<>();
    Map<String, String> partitionOf = new HashMap<>();
    int n = 60 + random.nextInt(60);
    for (int i = 0; i < n; i++) {
      String key = "m-" + i;
      int priority = new int[] {-1000, -5, 0, 0, 3, 1000}[random.nextInt(6)];
      String partition = random.nextInt(4) == 0 ? null : "tenant-" + random.nextInt(5);
      boolean later = random.nextInt(3) == 0;
      Message m = Message.of(Q, key, Map.of("i", i)).priority(priority).partition(partition);
      once.queue().send(later ? m.deliverAt(clock.instant().plusSeconds(3_600)) : m);
      where.put(key, later ? Where.DELAYED : Where.DUE);
      priorityOf.put(key, priority);
      partitionOf.put(key, partition);
    }
    once.queue().send("other", "o-1", Map.of()); // another queue counts nowhere here
    int leases = random.nextInt(20);
    for (Delivery d : once.queue().receive(Q, Math.max(1, leases), Duration.ofMinutes(10))) {
      where.put(d.lease().key(), Where.LEASED);
    }
    reopen();

    QueueBreakdown b = once.maintenance().queueBreakdown(Q, 100);
    Map<Integer, long[]> byPriority = new TreeMap<>();
    Map<String, long[]> byPartition = new HashMap<>();
    for (Map.Entry<String, Where> e : where.entrySet()) {
      byPriority
          .computeIfAbsent(priorityOf.get(e.getKey()), p -> new long[3])[e.getValue().ordinal()]++;
      byPartition
          .computeIfAbsent(partitionOf.get(e.getKey()), p -> new long[3])[e.getValue().ordinal()]++;
    }
    assertThat(b.at()).isEqualTo(clock.instant());
    List<Integer> priorities = new ArrayList<>(byPriority.keySet());
    java.util.Collections.reverse(priorities);
    assertThat(b.byPriority())
        .as("seed %d", seed)
        .extracting(QueueBreakdown.PriorityGroup::priority)
        .containsExactlyElementsOf(priorities);
    for (QueueBreakdown.PriorityGroup g : b.byPriority()) {
      assertThat(g.counts()).as("seed %d", seed).isEqualTo(counts(byPriority.get(g.priority())));
    }
    assertThat(b.partitions()).as("seed %d", seed).isEqualTo(byPartition.size());
    assertThat(b.byPartition()).hasSize(byPartition.size());
    long previous = Long.MAX_VALUE;
    for (QueueBreakdown.PartitionGroup g : b.byPartition()) {
      QueueCounts c = g.counts();
      assertThat(c).as("seed %d", seed).isEqualTo(counts(byPartition.get(g.partition())));
      long depth = c.due() + c.later();
      assertThat(depth).as("deepest first, seed %d", seed).isLessThanOrEqualTo(previous);
      previous = depth;
    }
    // the limit keeps the deepest groups and still counts them all
    QueueBreakdown top = once.maintenance().queueBreakdown(Q, 1);
    assertThat(top.byPartition()).containsExactly(b.byPartition().get(0));
    assertThat(top.partitions()).isEqualTo(byPartition.size());
    assertThat(once.maintenance().queueBreakdown("empty", 10).byPriority()).isEmpty();
  }

  private static QueueCounts counts(long[] c) {
    return new QueueCounts(c[0], c[1], c[2]);
  }

  @Test
  void aMessageIsFoundByKeyWithItsLeaseAndNextAttempt() {
    start();
    List<String> big = java.util.Collections.nCopies(15, "x".repeat(60_000)); // 900,000 chars
    once.queue().send(Message.of(Q, "a", Map.of("blob", big)).priority(7).partition("t-1"));
    Instant later = clock.instant().plusSeconds(600);
    once.queue().send(Message.of(Q, "b", Map.of("n", 2)).deliverAt(later));
    Delivery d = once.queue().receive(Q, 1, Duration.ofMinutes(5)).get(0);
    assertThat(d.lease().key()).isEqualTo("a");
    reopen();

    QueuedMessage a = once.maintenance().findMessage(Q, "a").orElseThrow();
    assertThat(a.state()).isEqualTo(QueuedMessage.State.LEASED);
    assertThat(a.attempts()).isEqualTo(1);
    assertThat(a.fence()).isEqualTo(d.lease().fence());
    assertThat(a.id()).isEqualTo(d.lease().messageId());
    assertThat(a.nextAttemptAt()).isEqualTo(d.lease().expiresAt());
    assertThat(a.priority()).isEqualTo(7);
    assertThat(a.partition()).contains("t-1");
    assertThat(a.payload()).hasSize(15 * 60_003 - 1 + 11).startsWith("{\"blob\":[\"xxx");
    QueuedMessage b = once.maintenance().findMessage(Q, "b").orElseThrow();
    assertThat(b.state()).isEqualTo(QueuedMessage.State.DELAYED);
    assertThat(b.nextAttemptAt()).isEqualTo(later);
    assertThat(b.partition()).isEmpty();
    assertThat(b.lastError()).isEmpty();
    clock.advance(Duration.ofMinutes(6)); // the lease ran out: due again
    assertThat(once.maintenance().findMessage(Q, "a").orElseThrow().state())
        .isEqualTo(QueuedMessage.State.DUE);
    assertThat(once.maintenance().findMessage(Q, "c")).isEmpty();
    assertThat(once.maintenance().findMessage("other", "a")).isEmpty();
  }

  @Test
  void messagesPageByIdWholeWhileOthersLeave() {
    start();
    for (int i = 0; i < 25; i++) {
      once.queue().send(Q, "k-" + i, Map.of("i", i));
    }
    once.queue().send("other", "o-1", Map.of());
    List<String> seen = new ArrayList<>();
    long after = 0;
    List<dev.onceonly.maintenance.Maintenance.MessageSummary> page;
    do {
      page = once.maintenance().messages(Q, after, 10);
      for (var m : page) {
        seen.add(m.key());
        after = m.id();
      }
      if (seen.size() == 10) {
        assertThat(once.queue().withdraw(Q, "k-3")).isTrue(); // an earlier one leaves
      }
    } while (page.size() == 10);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      expected.add("k-" + i);
    }
    assertThat(seen).containsExactlyElementsOf(expected);
    assertThat(once.maintenance().messages(Q, 0, 1))
        .singleElement()
        .satisfies(m -> assertThat(m.state()).isEqualTo(QueuedMessage.State.DUE));
    assertThatThrownBy(() -> once.maintenance().messages(Q, -1, 10))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theLimitsInForceAreTheDeclaredOnes() {
    start(b -> b.concurrencyLimit(Q, 4).concurrencyLimitPerPartition(Q, 2));
    assertThat(once.queue().limits(Q))
        .isEqualTo(new QueueLimits(OptionalInt.of(4), OptionalInt.of(2)));
    assertThat(once.queue().limits("free").none()).isTrue();
  }

  @Test
  void badArgumentsAreRefusedBeforeAnythingIsRead() {
    start();
    assertThatThrownBy(() -> once.maintenance().queueBreakdown(Q, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partitions must be between 1 and 10000");
    assertThatThrownBy(() -> once.maintenance().queueBreakdown(null, 1))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> once.maintenance().findMessage(Q, null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void keysNoSendWouldAcceptAreFoundWithdrawnAndRequeuedExactly() throws Exception {
    start();
    try (Connection c = connect()) {
      c.setAutoCommit(true);
      String now = timeLiteral(clock.millis());
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO onceonly_dead_letters (queue, message_key, fingerprint, payload,"
                  + " attempts, last_error, created_at, dead_at) VALUES (?, ?, 'x', '{}', 3,"
                  + " 'boom', "
                  + now
                  + ", "
                  + now
                  + ")")) {
        ps.setString(1, Q);
        ps.setString(2, HOSTILE);
        ps.executeUpdate();
      }
    }
    assertThat(once.queue().findDeadLetter(Q, HOSTILE)).isPresent();
    assertThat(once.queue().requeue(Q, HOSTILE)).isTrue();
    reopen();
    assertThat(strings("SELECT message_key FROM onceonly_messages")).containsExactly(HOSTILE);
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    assertThat(once.maintenance().findMessage(Q, HOSTILE).orElseThrow().state())
        .isEqualTo(QueuedMessage.State.DUE);
    assertThat(once.queue().withdraw(Q, HOSTILE)).isTrue();
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }
}
