package dev.onceonly.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.contract.ContractSupport;
import dev.onceonly.queue.Delivery;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A confirmed bulk action acts on the dead letters its review listed and on no other: between the
 * review and the confirmation, generated rounds dead-letter new messages that match the filter,
 * delete some of the reviewed ones, and requeue one and dead-letter it again (a later dead letter
 * of the same key). The rows left are compared with a reference the test computes on its own, and
 * the answer must say how many reviewed ones were already gone. {@code -Donceonly.dashboard.seed=S}
 * replays a run; the seed is in every assertion's description.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class DashboardBulkActionContract extends ContractSupport {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final int ROUNDS = 6;
  private DashboardServer server;

  /** A dead letter the test made, with the instant the store gave it. */
  private record Dead(String key, Instant at, boolean matches) {}

  @BeforeEach
  void serve() throws Exception {
    start();
    server = new DashboardServer(DashboardServlet.builder(once).build());
  }

  @AfterEach
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /** Dead-letters one new message of {@code key} a millisecond after the last one. */
  private Dead deadLetter(String queue, String key, String error) {
    clock.advance(Duration.ofMillis(1));
    once.queue().send(queue, key, Map.of("k", key)).orThrow();
    List<Delivery> got = once.queue().receive(queue, 1, LEASE);
    assertThat(got).singleElement().satisfies(d -> assertThat(d.key()).isEqualTo(key));
    once.queue().deadLetter(got.get(0).lease(), error);
    return new Dead(key, clock.instant(), error.contains("boom"));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"delete", "requeue"})
  void aConfirmedBulkActionTouchesOnlyWhatItsReviewListed(String action) throws Exception {
    long seed = Long.getLong("onceonly.dashboard.seed", System.nanoTime());
    Random random = new Random(seed);
    for (int round = 0; round < ROUNDS; round++) {
      String queue = "bulk-" + action + "-" + round;
      String why = "seed " + seed + ", round " + round + ", " + action;
      List<Dead> all = new ArrayList<>();
      int matching = 1 + random.nextInt(15);
      for (int i = 0; i < matching + random.nextInt(6); i++) {
        all.add(deadLetter(queue, "k" + i, i < matching ? "boom " + i : "other " + i));
      }
      int max = 1 + random.nextInt(matching + 3);
      List<Dead> reviewed =
          all.stream()
              .filter(Dead::matches)
              .sorted(Comparator.comparing(Dead::at).reversed().thenComparing(Dead::key))
              .limit(max)
              .toList();

      Map<String, String> ask =
          Map.of("queue", queue, "error", "boom", "max", String.valueOf(max), "action", action);
      HttpResponse<String> review = server.act("/dead-letters", "/dead-letters/bulk", ask);
      assertThat(review.body())
          .as(why)
          .contains("This will " + action + " " + reviewed.size() + " dead letters");

      // between the review and the confirmation
      Set<String> gone = new HashSet<>();
      for (Dead d : reviewed) {
        if (random.nextInt(4) == 0) {
          assertThat(once.maintenance().deleteDeadLetter(queue, d.key())).isTrue();
          gone.add(d.key());
        }
      }
      List<Dead> again = new ArrayList<>();
      for (Dead d : reviewed) {
        if (!gone.contains(d.key()) && random.nextInt(5) == 0) {
          assertThat(once.queue().requeue(queue, d.key())).isTrue();
          gone.add(d.key());
          again.add(deadLetterAgain(queue, d.key()));
        }
      }
      int arrivals = random.nextInt(51);
      for (int i = 0; i < arrivals; i++) {
        all.add(deadLetter(queue, "new" + i, "boom, later " + i));
      }

      String answer =
          server
              .post(
                  "/dead-letters/bulk", DashboardServer.formOf(review.body(), "/dead-letters/bulk"))
              .body();
      int acted = reviewed.size() - gone.size();
      assertThat(answer)
          .as(why)
          .contains(
              (action.equals("delete") ? "Deleted " : "Requeued ")
                  + acted
                  + " of the "
                  + reviewed.size()
                  + " dead letters reviewed")
          .contains(gone.isEmpty() ? "reviewed." : "; " + gone.size() + " were already gone");

      Set<String> actedOn = new TreeSet<>();
      reviewed.stream().map(Dead::key).filter(k -> !gone.contains(k)).forEach(actedOn::add);
      Set<String> leftDead = new TreeSet<>();
      all.stream().map(Dead::key).filter(k -> !actedOn.contains(k)).forEach(leftDead::add);
      leftDead.removeAll(deletedBeforeConfirm(gone, again));
      again.forEach(d -> leftDead.add(d.key()));
      assertThat(keys("dead_letters", queue)).as(why).containsExactlyInAnyOrderElementsOf(leftDead);
      assertThat(keys("messages", queue))
          .as(why)
          .containsExactlyInAnyOrderElementsOf(action.equals("requeue") ? actedOn : Set.of());
    }
  }

  /** The keys the test itself deleted between review and confirmation (not dead-lettered again). */
  private static Set<String> deletedBeforeConfirm(Set<String> gone, List<Dead> again) {
    Set<String> deleted = new HashSet<>(gone);
    again.forEach(d -> deleted.remove(d.key()));
    return deleted;
  }

  /** Receives the requeued message of {@code key} and dead-letters it again, later. */
  private Dead deadLetterAgain(String queue, String key) {
    clock.advance(Duration.ofMillis(1));
    List<Delivery> got = once.queue().receive(queue, 1, LEASE);
    assertThat(got).singleElement().satisfies(d -> assertThat(d.key()).isEqualTo(key));
    once.queue().deadLetter(got.get(0).lease(), "boom again");
    return new Dead(key, clock.instant(), true);
  }

  private List<String> keys(String table, String queue) {
    return strings(
        "SELECT message_key FROM onceonly_"
            + table
            + " WHERE queue = '"
            + queue
            + "' ORDER BY message_key");
  }
}
