package dev.onceonly.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.contract.ContractSupport;
import dev.onceonly.queue.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The lists of queues on a real Jetty over each database, with more queues than a page holds: each
 * page lists at most its bound, the deepest first, states how many there are in all, finds a queue
 * by a part of its name, and its pages reach every queue once.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class DashboardQueueListContract extends ContractSupport {
  private static final int SMALL = 120;
  private static final Pattern ROW =
      Pattern.compile("<tr><td><a href=\"[^\"]*\\?queue=[^\"]*\">([^<]*)</a></td>");
  private DashboardServer server;

  @AfterEach
  void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /** 120 queues of one message, two deeper ones and two of dead letters alone: 124 queues. */
  private Set<String> manyQueues() {
    Set<String> names = new LinkedHashSet<>();
    for (int i = 0; i < SMALL; i++) {
      String q = String.format(java.util.Locale.ROOT, "q-%03d", i);
      once.queue().send(q, "m", Map.of("n", i));
      names.add(q);
    }
    for (int i = 0; i < 5; i++) {
      once.queue().send("deep-a", "m-" + i, Map.of());
    }
    for (int i = 0; i < 3; i++) {
      once.queue().send("deep-b", "m-" + i, Map.of());
    }
    for (String q : List.of("dead-only-1", "dead-only-2")) {
      once.queue().send(q, "m", Map.of());
      for (Delivery d : once.queue().receive(q, 1, Duration.ofSeconds(30))) {
        once.queue().deadLetter(d.lease(), "boom");
      }
    }
    names.addAll(List.of("deep-a", "deep-b", "dead-only-1", "dead-only-2"));
    return names;
  }

  private static List<String> listed(String page) {
    int start = page.indexOf("<table id=\"queues\">");
    String table = page.substring(start, page.indexOf("</table>", start));
    List<String> out = new ArrayList<>();
    Matcher m = ROW.matcher(table);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  @Test
  void theQueuesPageListsABoundedPageDeepestFirstAndItsPagesReachEveryQueue() throws Exception {
    start();
    Set<String> names = manyQueues();
    server = new DashboardServer(DashboardServlet.builder(once).build());

    String first = server.get("/queues").body();
    List<String> rows = listed(first);
    assertThat(rows).hasSize(QueuesPage.QUEUES).startsWith("deep-a", "deep-b");
    assertThat(first)
        .contains("<p id=\"queue-total\">124 queues, the deepest first")
        .contains("of 3</p>");

    Set<String> seen = new LinkedHashSet<>();
    String page = first;
    int pages = 0;
    while (true) {
      List<String> these = listed(page);
      assertThat(these.size()).isLessThanOrEqualTo(QueuesPage.QUEUES);
      for (String name : these) {
        assertThat(seen.add(name)).as("listed twice: " + name).isTrue();
      }
      pages++;
      Matcher next =
          Pattern.compile("<a rel=\"next\" href=\"/ops(/queues\\?page=\\d+)\">").matcher(page);
      if (!next.find()) {
        break;
      }
      page = server.get(next.group(1)).body();
    }
    assertThat(pages).isEqualTo(3);
    assertThat(seen).isEqualTo(names);
    // the queues of dead letters alone come after every queue that holds a message
    assertThat(List.copyOf(seen).subList(names.size() - 2, names.size()))
        .containsExactly("dead-only-1", "dead-only-2");
  }

  @Test
  void aSearchFindsAQueueByAPartOfItsNameExactly() throws Exception {
    start();
    manyQueues();
    server = new DashboardServer(DashboardServlet.builder(once).build());

    String found = server.get("/queues?name=q-07").body();
    assertThat(listed(found))
        .containsExactly(
            "q-070", "q-071", "q-072", "q-073", "q-074", "q-075", "q-076", "q-077", "q-078",
            "q-079");
    assertThat(found).contains("10 queues match");
    assertThat(listed(server.get("/queues?name=q-119").body())).containsExactly("q-119");
    // case counts, and a pattern character is a character like any other, on every database
    assertThat(listed(server.get("/queues?name=Q-119").body())).isEmpty();
    assertThat(listed(server.get("/queues?name=q-%25").body())).isEmpty();
    assertThat(listed(server.get("/queues?name=q_1").body())).isEmpty();
    assertThat(server.get("/queues?name=nothing").body()).contains("0 queues match");
  }

  @Test
  void theOverviewListsTheDeepestFewAndStatesHowManyThereAre() throws Exception {
    start();
    manyQueues();
    server = new DashboardServer(DashboardServlet.builder(once).build());

    String page = server.get("/").body();
    assertThat(listed(page)).hasSize(OverviewPage.DEEPEST).startsWith("deep-a", "deep-b");
    assertThat(page)
        .contains("124 queues; the deepest 10 here")
        .contains("<tr><td>messages</td><td>due</td><td class=\"n\">128</td></tr>")
        .contains("<tr><td>dead letters</td><td>kept</td><td class=\"n\">2</td></tr>");
    // one row per table and state, never one per queue
    int counts = page.indexOf("<table id=\"counts\">");
    String table = page.substring(counts, page.indexOf("</table>", counts));
    assertThat(table.split("<tr>", -1).length - 1).isLessThan(20);
  }
}
