package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.MariaDbContractDatabase;
import dev.onceonly.testing.Race;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
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
      assertDeliveredOnce(Race.run(8, t -> () -> claimAndAckUntilEmpty(q, 1 + t % 4)), sent);
    }
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  /**
   * Claims of a queue with a concurrency limit wait for the limit's lock, a row in {@code
   * onceonly_key_locks}. The library's sessions wait at most a second ({@code
   * innodb_lock_wait_timeout = 1}), and the test's own transaction holds every such row until the
   * server has counted a lock wait timeout (1205, InnoDB's {@code lock_timeouts} metric); the
   * claims that timed out run again, so eight threads claiming and acknowledging 200 messages
   * deliver each once, no call fails, and none is left.
   */
  @Test
  void claimsWhoseLockWaitTimesOutRunAgainAndDeliverEveryMessageOnce() throws Exception {
    int messages = 200;
    Set<String> sent = new HashSet<>();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.url());
    config.setMaximumPoolSize(16);
    config.setConnectionInitSql("SET SESSION innodb_lock_wait_timeout = 1");
    try (HikariDataSource impatient = new HikariDataSource(config);
        OnceOnly once = OnceOnly.builder().dataSource(impatient).concurrencyLimit(Q, 4).build();
        Connection holder = db.connect()) {
      JobQueue q = once.queue();
      List<Message> batch = new ArrayList<>();
      for (int i = 0; i < messages; i++) {
        batch.add(new Message(Q, "m-" + i, Map.of("i", i), null, 0));
        sent.add("m-" + i);
      }
      q.sendAll(batch);
      InnoDbMetrics.enableTimeoutMetric(holder);
      long before = InnoDbMetrics.lockTimeouts(holder);
      holder.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      holder.setAutoCommit(false);
      try (Statement st = holder.createStatement();
          ResultSet rs = st.executeQuery("SELECT bucket FROM onceonly_key_locks FOR UPDATE")) {
        while (rs.next()) {
          rs.getInt(1); // every bucket, so the limit's own is among them
        }
      }
      CompletableFuture<List<List<String>>> race =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return Race.run(8, t -> () -> claimAndAckUntilEmpty(q, 1 + t % 4));
                } catch (Exception e) {
                  throw new CompletionException(e);
                }
              });
      try (Connection watcher = db.connect()) {
        Eventually.await(
            Duration.ofSeconds(60),
            "a claim's lock wait timed out (1205)",
            () -> InnoDbMetrics.lockTimeouts(watcher) > before);
      }
      holder.rollback();
      assertDeliveredOnce(race.get(120, TimeUnit.SECONDS), sent);
    }
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  /** Claims up to {@code max} at a time and acknowledges them until the queue is empty. */
  private static List<String> claimAndAckUntilEmpty(JobQueue q, int max) {
    List<String> mine = new ArrayList<>();
    while (true) {
      List<Delivery> got = q.receive(Q, max, LEASE);
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
  }

  private static void assertDeliveredOnce(List<List<String>> taken, Set<String> sent) {
    List<String> all = taken.stream().flatMap(List::stream).toList();
    assertThat(all).hasSize(sent.size()).doesNotHaveDuplicates();
    assertThat(new HashSet<>(all)).isEqualTo(sent);
  }

  /** InnoDB's count of lock wait timeouts, from {@code information_schema.INNODB_METRICS}. */
  private static final class InnoDbMetrics {
    private InnoDbMetrics() {}

    static void enableTimeoutMetric(Connection c) throws SQLException {
      try (Statement st = c.createStatement()) {
        st.execute("SET GLOBAL innodb_monitor_enable = 'lock_timeouts'");
      }
    }

    static long lockTimeouts(Connection c) {
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT `COUNT` FROM information_schema.INNODB_METRICS"
                      + " WHERE NAME = 'lock_timeouts'")) {
        return rs.next() ? rs.getLong(1) : -1;
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
