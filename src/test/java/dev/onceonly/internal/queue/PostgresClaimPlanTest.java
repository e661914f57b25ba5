package dev.onceonly.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.OnceOnly;
import dev.onceonly.internal.dialect.SqlDialect;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.sql.Dialect;
import dev.onceonly.testing.PostgresContractDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A claim on PostgreSQL reads about as many rows as it takes, on a table filled faster than {@code
 * ANALYZE} ran: with no statistics the planner estimated a few due rows, gathered every due message
 * of the queue with a bitmap scan and sorted them, so each claim of a backlog cost time in
 * proportion to the backlog (a drain of N jobs, N squared). Read from the server's own {@code
 * EXPLAIN ANALYZE}: the most rows any step of the plan produced. Then the claims themselves,
 * against a reference computed here from what was sent.
 */
class PostgresClaimPlanTest {
  private static final int BACKLOG = 3_000;
  private static final int CLAIM = 50;

  private final PostgresContractDatabase pg = PostgresContractDatabase.create();

  @AfterEach
  void closePools() {
    pg.close();
  }

  @Test
  void aClaimOfABacklogReadsAboutWhatItTakes() throws Exception {
    assertClaimsReadAboutWhatTheyTake(false);
  }

  /**
   * With statistics, the planner knows the table is large, and saw the claim's limit as a tenth of
   * it: it built a hash of the whole table to join the rows to update (a sequential scan of every
   * message for each claim; 300 ms a claim of 100 at a backlog of 400,000).
   */
  @Test
  void aClaimOfAnAnalyzedBacklogReadsAboutWhatItTakes() throws Exception {
    assertClaimsReadAboutWhatTheyTake(true);
  }

  private void assertClaimsReadAboutWhatTheyTake(boolean analyzed) throws Exception {
    try (OnceOnly once = pg.builder().build()) {
      sendBacklog(once, new Random(30), new ArrayList<>());
      if (analyzed) {
        try (Connection c = pg.connect();
            java.sql.Statement st = c.createStatement()) {
          st.execute("ANALYZE onceonly_messages");
        }
      }
      SqlDialect dialect = SqlDialect.of(Dialect.POSTGRESQL);
      for (boolean oldestFirst : new boolean[] {false, true}) {
        long most =
            mostRowsOfAnyStep(
                dialect.claim("onceonly_messages", "onceonly_queue_pauses", oldestFirst), dialect);
        assertThat(most)
            .as("rows of the busiest plan step, oldest first %s, claiming %d", oldestFirst, CLAIM)
            .isLessThanOrEqualTo(4L * CLAIM);
      }
    }
  }

  @Test
  void claimsTakeTheDueMessagesInClaimOrder() throws Exception {
    Random random = new Random(31);
    try (OnceOnly once = pg.builder().build()) {
      List<Sent> due = new ArrayList<>();
      sendBacklog(once, random, due);
      // The reference: highest priority first, then as sent; every fourth claim takes the oldest.
      List<Sent> left = new ArrayList<>(due);
      for (int claim = 0; claim < 12; claim++) {
        boolean oldest = claim % 4 == 3;
        left.sort(
            oldest
                ? Comparator.comparingInt(Sent::order)
                : Comparator.comparingInt((Sent s) -> -s.priority()).thenComparingInt(Sent::order));
        int n = 1 + random.nextInt(2 * CLAIM);
        List<String> expected =
            left.subList(0, Math.min(n, left.size())).stream().map(Sent::key).sorted().toList();
        List<String> got =
            once.queue().receive("plan", n, Duration.ofMinutes(5)).stream()
                .map(Delivery::key)
                .sorted()
                .toList();
        assertThat(got).as("claim %d of %d, oldest first %s", claim, n, oldest).isEqualTo(expected);
        left.removeIf(s -> expected.contains(s.key()));
      }
    }
  }

  private record Sent(String key, int priority, int order) {}

  /**
   * Sends {@link #BACKLOG} messages: three in four due now, in three priorities, the rest due in an
   * hour (and at the highest priority, so that a scan of a priority meets them); adds the due ones
   * to {@code due}, in the order they are due.
   */
  private static void sendBacklog(OnceOnly once, Random random, List<Sent> due) {
    List<Message> chunk = new ArrayList<>();
    Instant past = Instant.now().minusSeconds(3_600);
    for (int i = 0; i < BACKLOG; i++) {
      String key = "k" + i;
      boolean later = i % 4 == 3;
      int priority = later ? 9 : random.nextInt(3);
      Message m = Message.of("plan", key, Map.of("i", i)).priority(priority);
      m = later ? m.deliverAt(past.plusSeconds(7_200)) : m.deliverAt(past.plusMillis(i));
      if (!later) {
        due.add(new Sent(key, priority, i));
      }
      chunk.add(m);
      if (chunk.size() == 500) {
        once.queue().sendAll(chunk);
        chunk.clear();
      }
    }
  }

  /** Runs the claim under {@code EXPLAIN ANALYZE}, rolled back; the most rows any step produced. */
  private long mostRowsOfAnyStep(String claim, SqlDialect dialect) throws Exception {
    try (Connection c = pg.connect()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, FORMAT JSON) " + claim)) {
        long now = Instant.now().toEpochMilli();
        dialect.bindClaim(ps, "plan", now, CLAIM, now + 300_000);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          JsonNode plan = new ObjectMapper().readTree(rs.getString(1)).get(0).get("Plan");
          return most(plan);
        }
      } finally {
        c.rollback();
      }
    }
  }

  private static long most(JsonNode node) {
    long most = node.path("Actual Rows").asLong() * Math.max(1, node.path("Actual Loops").asLong());
    for (JsonNode child : node.path("Plans")) {
      most = Math.max(most, most(child));
    }
    return most;
  }
}
