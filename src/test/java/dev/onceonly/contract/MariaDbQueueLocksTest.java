package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.testing.MariaDbContractDatabase;
import dev.onceonly.testing.Race;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the job queue's claims meet InnoDB's locks on the build's MariaDB server: a row another
 * transaction holds is passed by through the priority index ({@code SKIP LOCKED}), not waited for;
 * and racing claimers and acknowledgers, whose locks InnoDB takes in different orders, deliver
 * every message once, their deadlocks (1213) and lock wait timeouts (1205) run again. The
 * concurrency limit under the server's default {@code REPEATABLE READ} is raced in {@link
 * ConcurrencyLimitContract}, which runs on MariaDB.
 */
class MariaDbQueueLocksTest {
  private static final String Q = "jobs";
  private static final Duration LEASE = Duration.ofMinutes(5);

  /** Guards the build against a claim that waits for the held row; the assertion is the result. */
  private static final Duration GUARD = Duration.ofSeconds(30);

  private final MariaDbContractDatabase db = MariaDbContractDatabase.create();

  @AfterEach
  void closePools() {
    db.close();
  }

  /**
   * The test's own transaction locks the message a claim would take first (the highest priority),
   * as an acknowledgement in flight does; the claim takes the next one at once, through the index
   * of its order, and the held message is still there, unclaimed, once the holder lets go.
   */
  @Test
  void aClaimPassesByTheRowAnotherTransactionHoldsThroughThePriorityIndex() throws Exception {
    try (OnceOnly once = db.builder().build()) {
      JobQueue q = once.queue();
      for (int i = 0; i < 20; i++) {
        q.send(new Message(Q, "m-" + i, Map.of("i", i), null, i == 7 ? 100 : i % 3));
      }
      try (Connection holder = db.connect()) {
        long id = db.count("SELECT id FROM onceonly_messages WHERE message_key = 'm-7'");
        holder.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        holder.setAutoCommit(false);
        try (PreparedStatement ps =
            holder.prepareStatement("SELECT id FROM onceonly_messages WHERE id = ? FOR UPDATE")) {
          ps.setLong(1, id); // the primary key: this one row, as a DELETE by id locks it
          try (ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).isTrue();
          }
        }
        List<Delivery> got = assertTimeoutPreemptively(GUARD, () -> q.receive(Q, 1, LEASE));
        assertThat(got).extracting(d -> d.lease().key()).containsExactly("m-2");
        holder.rollback();
      }
      assertThat(db.strings("SELECT fence FROM onceonly_messages WHERE message_key = 'm-7'"))
          .containsExactly("0");
      assertThat(q.receive(Q, 1, LEASE)).extracting(d -> d.lease().key()).containsExactly("m-7");
    }
  }

  /**
   * Eight threads claim and acknowledge 400 messages of random priorities at once, in batches: a
   * claim locks through the secondary index, then the rows; an acknowledgement the row, then the
   * index entries it deletes. Every message is delivered once, no call fails, and none is left.
   */
  @Test
  void racingClaimersAndAcknowledgersDeliverEveryMessageOnce() throws Exception {
    int messages = 400;
    Random random = new Random(29);
    Set<String> sent = new HashSet<>();
    try (OnceOnly once = db.builder().build()) {
      JobQueue q = once.queue();
      List<Message> batch = new ArrayList<>();
      for (int i = 0; i < messages; i++) {
        batch.add(new Message(Q, "m-" + i, Map.of("i", i), null, random.nextInt(5)));
        sent.add("m-" + i);
      }
      q.sendAll(batch);
      List<List<String>> taken =
          Race.run(
              8,
              t ->
                  () -> {
                    List<String> mine = new ArrayList<>();
                    while (true) {
                      List<Delivery> got = q.receive(Q, 1 + t % 4, LEASE);
                      if (got.isEmpty()) {
                        if (q.depth(Q) == 0) {
                          return mine;
                        }
                        continue; // another thread holds the rest, and acknowledges them
                      }
                      for (Delivery d : got) {
                        assertThat(q.ack(d.lease())).isInstanceOf(QueueResult.Completed.class);
                        mine.add(d.lease().key());
                      }
                    }
                  });
      List<String> all = taken.stream().flatMap(List::stream).toList();
      assertThat(all).hasSize(messages).doesNotHaveDuplicates();
      assertThat(new HashSet<>(all)).isEqualTo(sent);
    }
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }
}
