package dev.onceonly.dashboard;

import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet.NotFound;
import dev.onceonly.dashboard.DashboardServlet.View;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.maintenance.Maintenance.MessageSummary;
import dev.onceonly.maintenance.QueueBreakdown;
import dev.onceonly.maintenance.QueuePage;
import dev.onceonly.maintenance.QueuedMessage;
import dev.onceonly.maintenance.StoreStatus;
import dev.onceonly.queue.QueueLimits;
import dev.onceonly.queue.QueuePause;
import java.util.List;
import java.util.Optional;

/**
 * The Queues pages: every queue's counts and the paused queues; one queue, paused or not (with the
 * form that pauses or resumes it), by priority and partition with its limits, its live leases and
 * its messages a page at a time; one message found by key, which may be withdrawn.
 */
final class QueuesPage {
  /** Messages per page of one queue. */
  static final int PAGE = 50;

  /** Queues per page of the list of queues. */
  static final int QUEUES = 50;

  /** The most partitions one queue's page lists, the deepest first. */
  static final int PARTITIONS = 50;

  private final OnceOnly once;

  QueuesPage(OnceOnly once) {
    this.once = once;
  }

  /**
   * {@code /queues}: a page of {@link #QUEUES} queues, the deepest first, those whose name holds
   * {@code name} if it is given, with how many there are in all; with {@code queue} named, that
   * queue alone.
   */
  String queues(View v) {
    String queue = v.param("queue");
    if (!queue.isEmpty()) {
      Html h = new Html().raw("<h1>Queue ").text(queue).raw("</h1><p>");
      h.link(v.base(), "/queues", "All queues").raw("</p>");
      pauseState(h, v, queue);
      queue(h, v, queue);
      findForm(h, v.base(), queue, "");
      return h.toString();
    }
    String name = v.param("name");
    long page = number(v.param("page"), "page");
    QueuePage found = once.maintenance().queues(name, page * QUEUES, QUEUES);
    long pages = Math.max(1, (found.total() + QUEUES - 1) / QUEUES);
    Html h = new Html().raw("<h1>Queues</h1><form method=\"get\" id=\"search\"><label>name");
    h.raw(" contains <input name=\"name\" value=\"").text(name);
    h.raw("\"></label> <button>Search</button></form><p id=\"queue-total\">");
    h.text(Html.count(found.total())).raw(name.isEmpty() ? " queues" : " queues match");
    h.raw(", the deepest first; page <span id=\"page\">").text(page + 1).raw("</span> of ");
    h.text(pages).raw("</p>");
    table(h, v.base(), found.queues());
    pausedTable(h, v.base());
    h.raw("<p class=\"pager\">");
    String filter =
        v.base() + "/queues?" + (name.isEmpty() ? "" : "name=" + Pages.encode(name) + "&");
    if (page > 0) {
      h.raw("<a rel=\"prev\" href=\"").text(filter + "page=" + (page - 1)).raw("\">previous</a> ");
    }
    if (page + 1 < pages) {
      h.raw("<a rel=\"next\" href=\"").text(filter + "page=" + (page + 1)).raw("\">next</a>");
    }
    h.raw("</p>");
    findForm(h, v.base(), "", "");
    return h.toString();
  }

  /** A table of queues with their counts, each linked to its own page. */
  static void table(Html h, String base, List<QueuePage.Queue> queues) {
    h.raw("<table id=\"queues\"><tr><th>queue</th><th>due</th><th>leased</th><th>delayed</th>");
    h.raw("<th>depth</th><th>dead letters</th></tr>");
    for (QueuePage.Queue q : queues) {
      h.raw("<tr><td><a href=\"").text(base + "/queues?queue=" + Pages.encode(q.name()));
      h.raw("\">").text(q.name()).raw("</a></td>");
      counts(h, q.counts());
      h.td(Html.count(q.deadLetters())).raw("</tr>");
    }
    h.raw("</table>");
  }

  /** Every paused queue, with who paused it, when and why (rows: every instance's pauses). */
  private void pausedTable(Html h, String base) {
    List<QueuePause> pauses = once.queue().pausedQueues();
    h.raw("<h2>Paused queues</h2><p>").text(Html.count(pauses.size()));
    h.raw(" paused: no instance claims their messages until they are resumed.</p>");
    h.raw("<table id=\"paused-queues\"><tr><th>queue</th><th>paused by</th><th>paused at</th>");
    h.raw("<th>reason</th></tr>");
    for (QueuePause p : pauses) {
      h.raw("<tr><td><a href=\"").text(base + "/queues?queue=" + Pages.encode(p.queue()));
      h.raw("\">").text(p.queue()).raw("</a></td>").td(p.pausedBy()).td(p.pausedAt());
      h.td(p.reason() == null ? "" : p.reason()).raw("</tr>");
    }
    h.raw("</table>");
  }

  /** One queue's pause, and the form that pauses or resumes it. */
  private void pauseState(Html h, View v, String queue) {
    Optional<QueuePause> pause = once.queue().paused(queue);
    h.raw("<p id=\"pause\">");
    if (pause.isPresent()) {
      QueuePause p = pause.get();
      h.raw("<strong>Paused</strong> by <span id=\"paused-by\">").text(p.pausedBy());
      h.raw("</span> at <span id=\"paused-at\">").text(p.pausedAt()).raw("</span>, reason: ");
      h.raw("<span id=\"pause-reason\">").text(p.reason() == null ? "(none given)" : p.reason());
      h.raw("</span>. No instance claims its messages until it is resumed; the messages leased");
      h.raw(" already are settled as usual.");
    } else {
      h.raw("Running: every instance claims its due messages.");
    }
    h.raw("</p>");
    if (v.mayAct()) {
      Pages.form(h, v, pause.isPresent() ? "/queues/resume" : "/queues/pause");
      h.hiddenExact("queue", queue);
      if (pause.isPresent()) {
        h.raw("<button id=\"resume\">Resume</button></form>");
      } else {
        h.raw("<label>reason <input name=\"reason\" maxlength=\"1000\"></label> ");
        h.raw("<button id=\"pause-queue\">Pause</button></form>");
      }
    }
  }

  private static void counts(Html h, StoreStatus.QueueCounts c) {
    h.td(Html.count(c.due())).td(Html.count(c.leased())).td(Html.count(c.delayed()));
    h.td(Html.count(c.due() + c.later()));
  }

  private static void findForm(Html h, String base, String queue, String key) {
    h.raw("<h2>Find a message by key</h2><form method=\"get\" id=\"find\" action=\"");
    h.text(base + "/message").raw("\">");
    h.raw("<label>queue <input name=\"queue\" required value=\"").text(queue);
    h.raw("\"></label> <label>key <input name=\"key\" required value=\"").text(key);
    h.raw("\"></label> <button>Find</button></form>");
  }

  private void queue(Html h, View v, String queue) {
    QueueBreakdown b = once.maintenance().queueBreakdown(queue, PARTITIONS);
    h.raw("<p id=\"limits\">Limits in force: ");
    QueueLimits limits = once.queue().limits(queue);
    if (limits.none()) {
      h.raw("none declared by this instance");
    } else {
      h.text(limits.maxLeased().isPresent() ? "at most " + limits.maxLeased().getAsInt() : "no");
      h.raw(" leased at once; ");
      h.text(
          limits.maxLeasedPerPartition().isPresent()
              ? "at most " + limits.maxLeasedPerPartition().getAsInt()
              : "no limit");
      h.raw(" per partition; ");
      h.text(limits.rate().map(QueuesPage::rate).orElse("no"));
      h.raw(" claims per window; ");
      h.text(limits.ratePerPartition().map(QueuesPage::rate).orElse("no limit"));
      h.raw(" per partition");
    }
    h.raw(" (each instance's own settings; every instance should declare the same).</p>");
    h.raw("<h2>By priority</h2><table id=\"by-priority\"><tr><th>priority</th><th>due</th>");
    h.raw("<th>leased</th><th>delayed</th><th>depth</th></tr>");
    long[] total = new long[3];
    for (QueueBreakdown.PriorityGroup g : b.byPriority()) {
      h.raw("<tr>").td(g.priority());
      counts(h, g.counts());
      h.raw("</tr>");
      total[0] += g.counts().due();
      total[1] += g.counts().leased();
      total[2] += g.counts().delayed();
    }
    h.raw("<tr class=\"total\"><td>all</td>");
    counts(h, new StoreStatus.QueueCounts(total[0], total[1], total[2]));
    h.raw("</tr>");
    h.raw("</table><h2>By partition</h2><p>").text(Html.count(b.partitions()));
    h.raw(b.partitions() > PARTITIONS ? " partitions; the deepest " + PARTITIONS : " partitions");
    h.raw("</p><table id=\"by-partition\"><tr><th>partition</th><th>due</th><th>leased</th>");
    h.raw("<th>delayed</th><th>depth</th></tr>");
    for (QueueBreakdown.PartitionGroup g : b.byPartition()) {
      h.raw("<tr>").td(g.partition() == null ? "(none)" : g.partition());
      counts(h, g.counts());
      h.raw("</tr>");
    }
    h.raw("</table>");
    leases(h, queue);
    messages(h, v, queue);
  }

  private void leases(Html h, String queue) {
    h.raw("<h2>Live leases</h2><table><tr><th>key</th><th>id</th><th>attempts</th>");
    h.raw("<th>lease until</th></tr>");
    for (Maintenance.LiveLease l : once.maintenance().liveLeases(queue, Pages.LISTED)) {
      h.raw("<tr>").td(l.key()).td(l.messageId()).td(l.attempts()).td(l.until()).raw("</tr>");
    }
    h.raw("</table>");
  }

  private void messages(Html h, View v, String queue) {
    long after = number(v.param("after"), "after");
    List<MessageSummary> rows = once.maintenance().messages(queue, after, PAGE);
    h.raw("<h2>Messages</h2><p>").text(after == 0 ? "From the first" : "After id " + after);
    h.raw(", in the order they were sent, ").text(PAGE).raw(" a page.</p>");
    h.raw("<table id=\"messages\"><tr><th>id</th><th>key</th><th>state</th><th>attempts</th>");
    h.raw("<th>next attempt</th><th>priority</th><th>partition</th></tr>");
    for (MessageSummary m : rows) {
      h.raw("<tr>").td(m.id()).raw("<td><a href=\"").text(v.base() + "/message?queue=");
      h.text(Pages.encode(queue) + "&key=" + Pages.encode(m.key())).raw("\">").text(m.key());
      h.raw("</a></td>").td(m.state()).td(m.attempts()).td(m.nextAttemptAt()).td(m.priority());
      h.td(m.partition() == null ? "" : m.partition()).raw("</tr>");
    }
    h.raw("</table><p class=\"pager\">");
    String here = v.base() + "/queues?queue=" + Pages.encode(queue);
    if (after > 0) {
      h.raw("<a rel=\"first\" href=\"").text(here).raw("\">first</a> ");
    }
    if (rows.size() == PAGE) {
      h.raw("<a rel=\"next\" href=\"").text(here + "&after=" + rows.get(PAGE - 1).id());
      h.raw("\">next</a>");
    }
    h.raw("</p>");
  }

  /** {@code /message}: one message found by queue and key, and its withdraw button. */
  String message(View v) {
    String queue = v.exact("queue");
    String key = v.exact("key");
    if (queue.isEmpty() || key.isEmpty()) {
      throw new IllegalArgumentException("queue and key are required");
    }
    QueuedMessage m =
        once.maintenance()
            .findMessage(queue, key)
            .orElseThrow(
                () ->
                    new NotFound(
                        "no message of that key waits or is in flight in that queue"
                            + " (acknowledged, withdrawn, dead-lettered or never sent)"));
    Html h = new Html().raw("<h1>Message</h1><dl id=\"message\"><dt>queue</dt><dd>").text(queue);
    h.raw("</dd><dt>key</dt><dd class=\"key\">").text(key).raw("</dd><dt>id</dt><dd>");
    h.text(m.id()).raw("</dd><dt>state</dt><dd id=\"state\">").text(m.state());
    h.raw("</dd><dt>attempts</dt><dd>").text(m.attempts()).raw("</dd><dt>");
    h.text(m.state() == QueuedMessage.State.LEASED ? "lease ends, next attempt" : "next attempt");
    h.raw("</dt><dd>").text(m.nextAttemptAt()).raw("</dd><dt>lease holder</dt><dd>");
    h.text(
        m.fence() == 0
            ? "never leased"
            : "the holder of lease number " + m.fence() + " (receivers are not recorded by name)");
    h.raw("</dd><dt>priority</dt><dd>").text(m.priority()).raw("</dd><dt>partition</dt><dd>");
    h.text(m.partition().orElse("(none)")).raw("</dd><dt>sent at</dt><dd>").text(m.createdAt());
    h.raw("</dd><dt>last error</dt><dd>").capped(m.lastError().orElse(null));
    h.raw("</dd><dt>payload</dt><dd>").capped(m.payload());
    if (m.largePayloadRef().isPresent()) {
      h.raw("<p>Its large body is stored apart, under ").text(m.largePayloadRef().get());
      h.raw(".</p>");
    }
    h.raw("</dd></dl>");
    AttemptErrorsTable.append(h, once.queue().attemptErrors(queue, key));
    if (v.mayAct()) {
      Pages.form(h, v, "/queues/withdraw");
      h.hiddenExact("queue", queue).hiddenExact("key", key);
      h.raw("<button id=\"withdraw\">Withdraw</button></form><p>Withdrawing deletes the message");
      h.raw(" whatever its state; a receiver holding its lease can no longer acknowledge it.</p>");
    }
    findForm(h, v.base(), queue, key);
    return h.toString();
  }

  static long number(String value, String name) {
    if (value.isEmpty()) {
      return 0;
    }
    try {
      long n = Long.parseLong(value.strip());
      if (n < 0) {
        throw new IllegalArgumentException(name + " must be >= 0: " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number >= 0");
    }
  }

  /** A rate limit in words: {@code at most 100 per PT1M}. */
  private static String rate(dev.onceonly.queue.RateLimit r) {
    return "at most " + r.claims() + " per " + r.window();
  }
}
