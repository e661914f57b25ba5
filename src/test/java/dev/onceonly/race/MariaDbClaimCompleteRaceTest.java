package dev.onceonly.race;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Completion;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Claims racing completions on one queue on the build's MariaDB server, with works that take row
 * locks of their own. A claim locks the priority index, then the rows it takes; a completion
 * deletes its rows, then their index entries, then runs its work. Claims and completions alone pass
 * each other by ({@code SKIP LOCKED}): three races of 600 jobs without the works' counters counted
 * no deadlock. The works' counters, taken by two threads in opposite orders, make InnoDB pick
 * deadlock victims (1213) in the middle of a batch's completion, after its acknowledgements; with
 * {@code innodb_lock_wait_timeout = 1} a waiter may time out instead (1205). The library runs such
 * a transaction again, acknowledgements and works; no error reaches a caller, and every job is
 * handled exactly once, counted in the rows after the race.
 */
class MariaDbClaimCompleteRaceTest {
  private static final String Q = "jobs";
  private static final Duration LEASE = Duration.ofMinutes(5);
  private static final int THREADS = 8;

  private final MariaDbContractDatabase db = MariaDbContractDatabase.create();

  @AfterEach
  void closePools() {
    db.close();
  }

  /**
   * Eight threads behind a start gate claim 1 to 4 jobs at a time from 600 of random priorities and
   * complete them together ({@code completeAll}), each work inserting the job's row in {@code
   * handled} (no key: a job handled twice would be two rows) and adding one to the two counters of
   * its pair of threads, the even thread in one order and the odd one in the other. The server
   * counts deadlocks or lock wait timeouts during the race (11 to 22 deadlocks a run here); every
   * completion succeeds, each job has one row in {@code handled}, each counter equals the jobs its
   * pair handled, and the queue is empty. With {@code MariaDbDialect.retryable} answering false, a
   * completion comes back {@code WorkFailed} with the deadlock.
   */
  @Test
  void claimsRacingCompletionsRunTheirDeadlocksAgainAndHandleEveryJobOnce() throws Exception {
    int jobs = 600;
    db.exec(
        "CREATE TABLE handled (id BIGINT AUTO_INCREMENT PRIMARY KEY, job_key VARCHAR(64) NOT NULL)",
        "CREATE TABLE tally (id INT PRIMARY KEY, n BIGINT NOT NULL)",
        "INSERT INTO tally VALUES (0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0)");
    Random random = new Random(1213);
    Set<String> sent = new HashSet<>();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.url());
    config.setMaximumPoolSize(THREADS + 4);
    config.setConnectionInitSql("SET SESSION innodb_lock_wait_timeout = 1");
    try (HikariDataSource impatient = new HikariDataSource(config);
        OnceOnly once = OnceOnly.builder().dataSource(impatient).build()) {
      JobQueue q = once.queue();
      List<Message> batch = new ArrayList<>();
      for (int i = 0; i < jobs; i++) {
        batch.add(new Message(Q, "j-" + i, Map.of("i", i), null, random.nextInt(5)));
        sent.add("j-" + i);
      }
      q.sendAll(batch);
      long[] before = refusals();
      List<List<String>> taken =
          Race.run(THREADS, t -> () -> claimAndCompleteUntilEmpty(q, 1 + t % 4, t));
      long[] after = refusals();
      long deadlocks = after[0] - before[0];
      long timeouts = after[1] - before[1];
      assertThat(deadlocks + timeouts)
          .as("deadlocks (1213) %d and lock wait timeouts (1205) %d", deadlocks, timeouts)
          .isPositive();
      List<String> all = taken.stream().flatMap(List::stream).toList();
      assertThat(all).hasSize(jobs).doesNotHaveDuplicates();
      assertThat(new HashSet<>(all)).isEqualTo(sent);
      for (int pair = 0; pair < THREADS / 2; pair++) {
        int handledByPair = taken.get(2 * pair).size() + taken.get(2 * pair + 1).size();
        assertThat(db.count("SELECT n FROM tally WHERE id = ?", 2 * pair)).isEqualTo(handledByPair);
        assertThat(db.count("SELECT n FROM tally WHERE id = ?", 2 * pair + 1))
            .isEqualTo(handledByPair);
      }
    }
    assertThat(db.count("SELECT COUNT(*) FROM handled")).isEqualTo(jobs);
    assertThat(db.count("SELECT COUNT(DISTINCT job_key) FROM handled")).isEqualTo(jobs);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  /**
   * Claims up to {@code max} jobs at a time and completes them in one transaction until the queue
   * is empty; returns the keys whose completion committed.
   */
  private static List<String> claimAndCompleteUntilEmpty(JobQueue q, int max, int thread) {
    List<String> mine = new ArrayList<>();
    while (true) {
      List<Delivery> got = q.receive(Q, max, LEASE);
      if (got.isEmpty()) {
        if (q.depth(Q) == 0) {
          return mine;
        }
        continue; // another thread holds the rest, and completes them
      }
      List<Completion> completions = new ArrayList<>();
      for (Delivery d : got) {
        String key = d.lease().key();
        completions.add(new Completion(d.lease(), tx -> handle(tx, key, thread)));
      }
      List<QueueResult> results = q.completeAll(completions);
      for (int i = 0; i < got.size(); i++) {
        assertThat(results.get(i)).isInstanceOf(QueueResult.Completed.class);
        mine.add(got.get(i).lease().key());
      }
    }
  }

  /** The job's work: its row, and one more on both counters, in the thread's order. */
  private static String handle(Connection tx, String key, int thread) throws SQLException {
    try (PreparedStatement ps = tx.prepareStatement("INSERT INTO handled (job_key) VALUES (?)")) {
      ps.setString(1, key);
      ps.executeUpdate();
    }
    try (PreparedStatement ps = tx.prepareStatement("UPDATE tally SET n = n + 1 WHERE id = ?")) {
      int first = 2 * (thread / 2);
      for (int id : thread % 2 == 0 ? new int[] {first, first + 1} : new int[] {first + 1, first}) {
        ps.setInt(1, id);
        ps.executeUpdate();
      }
    }
    return key;
  }

  /** The server's counts of deadlocks and lock wait timeouts so far. */
  private long[] refusals() throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("SET GLOBAL innodb_monitor_enable = 'lock_timeouts'");
      long deadlocks;
      try (ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'")) {
        assertThat(rs.next()).isTrue();
        deadlocks = rs.getLong(2);
      }
      try (ResultSet rs =
          s.executeQuery(
              "SELECT `COUNT` FROM information_schema.INNODB_METRICS"
                  + " WHERE NAME = 'lock_timeouts'")) {
        assertThat(rs.next()).isTrue();
        return new long[] {deadlocks, rs.getLong(1)};
      }
    }
  }
}
