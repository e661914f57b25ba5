package dev.onceonly.dashboard;

import dev.onceonly.OnceOnly;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.maintenance.QueuePage;
import dev.onceonly.maintenance.StoreStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The overview: the store's counts per table and state, the oldest pending intent and due message,
 * the schema version, the throughput of the last hour and the queue depth over time. It reads one
 * {@link Maintenance#status()} (each count a grouped query on an index), one {@link
 * Maintenance#deadLetteredPerMinute} and the schema version: no audit, no sweep, no write.
 */
final class OverviewPage {
  /** The minutes of the throughput chart: the last hour. */
  static final int MINUTES = 60;

  /** The queues the overview lists, the deepest first. */
  static final int DEEPEST = 10;

  private final OnceOnly once;
  private final History history;
  private final Throughput throughput;

  /**
   * @param throughput the application's counts of sends and completions, or null when it has none
   */
  OverviewPage(OnceOnly once, History history, Throughput throughput) {
    this.once = once;
    this.history = history;
    this.throughput = throughput;
  }

  String render(String base) {
    StoreStatus s = once.maintenance().status();
    history.record(s);
    Maintenance.PerMinute dead = once.maintenance().deadLetteredPerMinute(MINUTES);
    Html h =
        new Html().raw("<h1>Overview</h1><p>").text(s.database()).raw(", read at ").text(s.at());
    h.raw("; schema version ").text(s.schemaVersion()).raw(" (this library needs ");
    h.text(once.maintenance().schemaVersion().required()).raw(")</p>");
    counts(h, s);
    deepest(h, base, s);
    oldest(h, s);
    h.raw("<h2>Throughput, last hour</h2>");
    sources(h);
    List<Chart.Minute> minutes = minutes(dead, s.at());
    if (Chart.hasHistory(minutes)) {
      Chart.throughput(h, minutes);
    } else {
      h.raw("<p class=\"nohistory\" id=\"throughput-none\">no history yet: nothing was sent,");
      h.raw(" handled or dead-lettered in the last hour that these sources show.</p>");
    }
    h.raw("<h2>Queue depth over time</h2>");
    History.chart(h, history.samples());
    return h.toString();
  }

  private static void counts(Html h, StoreStatus s) {
    h.raw("<h2>Counts</h2><table id=\"counts\"><tr><th>table</th><th>state</th><th>rows</th>");
    h.raw("</tr>");
    row(h, "intents", "registered", s.intents());
    row(h, "intents", "pending (no receipt)", s.pendingIntents());
    row(h, "receipts", "live", s.receiptsLive());
    row(h, "receipts", "expired", s.receiptsExpired());
    row(h, "receipts", "tombstones", s.tombstones());
    long[] all = new long[3];
    for (StoreStatus.QueueCounts q : s.messages().values()) {
      all[0] += q.due();
      all[1] += q.leased();
      all[2] += q.delayed();
    }
    row(h, "messages", "due", all[0]);
    row(h, "messages", "leased", all[1]);
    row(h, "messages", "delayed", all[2]);
    row(h, "dead letters", "kept", s.deadLetterTotal());
    row(h, "rejections", "kept", s.rejections());
    for (Map.Entry<String, Long> c : s.claims().entrySet()) {
      row(h, "claims", c.getKey(), c.getValue());
    }
    h.raw("</table>");
  }

  /**
   * The deepest queues, a bounded few: the Queues page lists and searches them all. Taken from the
   * status the page read already, which counted every queue: a second pass over the messages
   * ({@code queues("", 0, DEEPEST)}) would double the page's time on a deep store.
   */
  private static void deepest(Html h, String base, StoreStatus s) {
    QueuePage q = QueuePage.deepestOf(s, DEEPEST);
    h.raw("<h2>Deepest queues</h2><p id=\"queue-total\">").text(Html.count(q.total()));
    h.raw(
        q.total() > DEEPEST
            ? " queues; the deepest " + DEEPEST + " here, every one on "
            : " queues; ");
    h.link(base, "/queues", "the Queues page").raw("</p>");
    QueuesPage.table(h, base, q.queues());
  }

  private static void row(Html h, String table, String state, long n) {
    h.raw("<tr>").td(table).td(state).raw("<td class=\"n\">").text(Html.count(n)).raw("</td></tr>");
  }

  private static void oldest(Html h, StoreStatus s) {
    h.raw("<h2>Oldest</h2><p>Oldest pending intent: ");
    if (s.oldestPending().isPresent()) {
      StoreStatus.PendingIntent p = s.oldestPending().get();
      h.text(p.key().scope() + " / " + p.key().key()).raw(", registered ").text(p.registeredAt());
      h.raw(", age ").text(Html.age(p.age()));
    } else {
      h.raw("none");
    }
    h.raw("</p><p>Oldest due message: ");
    h.text(s.oldestDueAge().map(a -> "waiting for " + Html.age(a)).orElse("none")).raw("</p>");
  }

  /** Says where each series comes from, so no reader takes a gap for a zero. */
  private void sources(Html h) {
    h.raw("<p class=\"legend\" id=\"throughput-sources\">Dead-lettered: from the dead letters");
    h.raw(" the store keeps (the time each was dead-lettered), so it survives restarts and counts");
    h.raw(" every instance; one deleted or requeued since no longer counts. Sent and handled: ");
    if (throughput == null) {
      h.raw("no data. The store keeps no row of a handled message; an application counts them by");
      h.raw(" registering a <code>Throughput</code> listener with the store and this dashboard.");
    } else {
      h.raw("counted from this instance's events since ").text(throughput.since());
      h.raw("; other instances and the time before that show as no data.");
    }
    h.raw("</p>");
  }

  private List<Chart.Minute> minutes(Maintenance.PerMinute dead, Instant now) {
    List<Chart.Minute> out = new ArrayList<>();
    for (int i = 0; i < dead.counts().size(); i++) {
      Instant minute = dead.start().plus(Duration.ofMinutes(i));
      Optional<long[]> counted =
          throughput == null ? Optional.empty() : throughput.minute(minute, now);
      out.add(
          new Chart.Minute(
              minute,
              counted.map(c -> c[0]).orElse(null),
              counted.map(c -> c[1]).orElse(null),
              dead.counts().get(i)));
    }
    return out;
  }
}
