package dev.onceonly.dashboard;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet.NotFound;
import dev.onceonly.dashboard.DashboardServlet.View;
import dev.onceonly.maintenance.Audit;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.maintenance.Maintenance.DeadLetterSummary;
import dev.onceonly.maintenance.StoreStatus;
import dev.onceonly.queue.DeadLetter;
import dev.onceonly.queue.Schedule;
import dev.onceonly.queue.ScheduleSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The dashboard's pages: each reads through the public APIs and renders HTML. */
final class Pages {
  /** Dead letters per page. */
  static final int PAGE = 50;

  /** The most unknown outcomes, pending intents and leases one page lists. */
  static final int LISTED = 200;

  /** Renders the body of a page. */
  @FunctionalInterface
  interface Body {
    String render();
  }

  private final OnceOnly once;
  private final boolean reconciles;
  private final Audit.Rules auditRules;
  private final OverviewPage overview;
  private final UnknownPage unknown;

  Pages(OnceOnly once, boolean reconciles, Audit.Rules auditRules, OverviewPage overview) {
    this.once = once;
    this.reconciles = reconciles;
    this.auditRules = auditRules;
    this.overview = overview;
    this.unknown = new UnknownPage(once);
  }

  String render(String path, View v) {
    return switch (path) {
      case "/" -> overview.render();
      case "/queues" -> queues(v);
      case "/dead-letters" -> deadLetters(v);
      case "/dead-letter" -> deadLetter(v);
      case "/unknown" -> unknown.render(v);
      case "/schedules" -> schedules(v);
      case "/receipts" -> receipts(v);
      case "/audit" -> audit();
      default -> throw new NotFound("no page at this path");
    };
  }

  /** Wraps a body in the page's head and navigation. */
  String frame(View v, String body) {
    Html h = new Html();
    h.raw("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .raw("<title>OnceOnly dashboard</title><link rel=\"stylesheet\" href=\"")
        .text(v.base() + "/assets/dashboard.css")
        .raw("\"><link rel=\"icon\" href=\"")
        .text(v.base() + "/assets/favicon.svg")
        .raw("\"></head><body><nav><strong>OnceOnly</strong>");
    String[][] links = {
      {"/", "Overview"},
      {"/queues", "Queues"},
      {"/dead-letters", "Dead letters"},
      {"/unknown", "Unknown outcomes"},
      {"/schedules", "Schedules"},
      {"/receipts", "Receipts"},
      {"/audit", "Audit"}
    };
    for (String[] l : links) {
      h.raw(" ").link(v.base(), l[0], l[1]);
    }
    h.raw(v.mayAct() ? "" : " <span class=\"ro\">read-only</span>");
    return h.raw("</nav><main>").raw(body).raw("</main></body></html>").toString();
  }

  String error(String message) {
    return new Html()
        .raw("<h1>Refused</h1><p class=\"error\">")
        .text(message)
        .raw("</p>")
        .toString();
  }

  private String queues(View v) {
    StoreStatus s = once.maintenance().status();
    Html h = new Html().raw("<h1>Queues</h1><table><tr><th>queue</th><th>due</th><th>leased</th>");
    h.raw("<th>delayed</th><th>depth</th><th>dead letters</th></tr>");
    java.util.SortedSet<String> names = new java.util.TreeSet<>(s.messages().keySet());
    names.addAll(s.deadLetters().keySet());
    for (String name : names) {
      StoreStatus.QueueCounts c =
          s.messages().getOrDefault(name, new StoreStatus.QueueCounts(0, 0, 0));
      h.raw("<tr>").td(name).td(Html.count(c.due())).td(Html.count(c.leased()));
      h.td(Html.count(c.delayed())).td(Html.count(c.due() + c.later()));
      h.td(Html.count(s.deadLetters().getOrDefault(name, 0L))).raw("</tr>");
    }
    h.raw("</table>");
    String queue = v.param("queue");
    if (!queue.isEmpty()) {
      h.raw("<h2>Live leases of ").text(queue).raw("</h2><table><tr><th>key</th><th>id</th>");
      h.raw("<th>attempts</th><th>lease until</th></tr>");
      for (Maintenance.LiveLease l : once.maintenance().liveLeases(queue, LISTED)) {
        h.raw("<tr>").td(l.key()).td(l.messageId()).td(l.attempts()).td(l.until()).raw("</tr>");
      }
      h.raw("</table>");
    }
    h.raw("<form method=\"get\"><label>Leases of queue <input name=\"queue\" value=\"");
    h.text(queue).raw("\"></label> <button>Show</button></form>");
    if (v.mayAct()) {
      h.raw("<h2>Withdraw a message</h2>");
      form(h, v, "/queues/withdraw");
      h.raw("<label>queue <input name=\"queue\" required></label> ");
      h.raw("<label>key <input name=\"key\" required></label> <button>Withdraw</button></form>");
    }
    return h.toString();
  }

  private String deadLetters(View v) {
    String queue = v.param("queue");
    long page = v.param("page").isEmpty() ? 0 : Long.parseLong(v.param("page"));
    if (page < 0) {
      throw new IllegalArgumentException("page must be >= 0: " + page);
    }
    StoreStatus s = once.maintenance().status();
    long total = queue.isEmpty() ? s.deadLetterTotal() : s.deadLetters().getOrDefault(queue, 0L);
    long pages = Math.max(1, (total + PAGE - 1) / PAGE);
    List<DeadLetterSummary> rows =
        once.maintenance().recentDeadLetters(queue.isEmpty() ? null : queue, page * PAGE, PAGE);
    Html h = new Html().raw("<h1>Dead letters</h1><form method=\"get\"><label>queue <input ");
    h.raw("name=\"queue\" value=\"").text(queue).raw("\"></label> <button>Filter</button></form>");
    h.raw("<p>").text(Html.count(total)).raw(" dead letters; page <span id=\"page\">");
    h.text(page + 1).raw("</span> of ").text(pages).raw("</p>");
    h.raw("<table id=\"dead-letters\"><tr><th>queue</th><th>key</th><th>attempts</th>");
    h.raw("<th>last error</th><th>dead at</th><th></th></tr>");
    for (DeadLetterSummary d : rows) {
      h.raw("<tr>").td(d.queue()).raw("<td><a href=\"").text(v.base() + "/dead-letter?queue=");
      h.text(encode(d.queue())).text("&key=" + encode(d.key())).raw("\">").text(d.key());
      h.raw("</a></td>").td(d.attempts()).td(d.lastError()).td(d.deadAt()).raw("<td>");
      if (v.mayAct()) {
        actionButton(h, v, "/dead-letters/requeue", d.queue(), d.key(), "Requeue");
        actionButton(h, v, "/dead-letters/delete", d.queue(), d.key(), "Delete");
      }
      h.raw("</td></tr>");
    }
    h.raw("</table><p class=\"pager\">");
    String filter = queue.isEmpty() ? "" : "queue=" + encode(queue) + "&";
    if (page > 0) {
      h.raw("<a rel=\"prev\" href=\"").text(v.base() + "/dead-letters?" + filter + "page=");
      h.text(page - 1).raw("\">previous</a> ");
    }
    if (page + 1 < pages) {
      h.raw("<a rel=\"next\" href=\"").text(v.base() + "/dead-letters?" + filter + "page=");
      h.text(page + 1).raw("\">next</a>");
    }
    h.raw("</p>");
    if (v.mayAct()) {
      h.raw("<h2>Requeue or delete a filtered set</h2>");
      form(h, v, "/dead-letters/bulk");
      h.raw("<label>queue <input name=\"queue\" value=\"").text(queue).raw("\"></label> ");
      h.raw("<label>error contains <input name=\"error\"></label> <label>at most <input ");
      h.raw("name=\"max\" value=\"100\" size=\"5\"></label> <select name=\"action\"><option>");
      h.raw("requeue</option><option>delete</option></select> <button>Review</button></form>");
    }
    return h.toString();
  }

  private String deadLetter(View v) {
    String queue = v.param("queue");
    String key = v.param("key");
    DeadLetter d =
        once.queue()
            .findDeadLetter(queue, key)
            .orElseThrow(() -> new NotFound("no dead letter of that queue and key"));
    Html h = new Html().raw("<h1>Dead letter</h1><dl><dt>queue</dt><dd>").text(d.queue());
    h.raw("</dd><dt>key</dt><dd class=\"key\">").text(d.key()).raw("</dd><dt>attempts</dt><dd>");
    h.text(d.attempts()).raw("</dd><dt>dead at</dt><dd>").text(d.deadAt());
    h.raw("</dd><dt>last error</dt><dd>").capped(d.lastError()).raw("</dd><dt>payload</dt><dd>");
    h.capped(d.payload().toString()).raw("</dd></dl>");
    if (v.mayAct()) {
      actionButton(h, v, "/dead-letters/requeue", d.queue(), d.key(), "Requeue");
      actionButton(h, v, "/dead-letters/delete", d.queue(), d.key(), "Delete");
    }
    return h.toString();
  }

  private String schedules(View v) {
    Html h = new Html().raw("<h1>Schedules</h1><table><tr><th>name</th><th>queue</th><th>when");
    h.raw("</th><th>zone</th><th>next slot</th><th>last slot</th><th>state</th><th></th></tr>");
    for (Schedule s : once.schedules().list()) {
      h.raw("<tr>").td(s.name()).td(s.queue()).td(when(s.spec())).td(zone(s.spec()));
      h.td(Html.at(s.nextRun())).td(Html.at(s.lastSlot())).td(s.paused() ? "paused" : "running");
      h.raw("<td>");
      if (v.mayAct()) {
        form(h, v, s.paused() ? "/schedules/resume" : "/schedules/pause");
        h.hiddenExact("name", s.name()).raw("<button>").raw(s.paused() ? "Resume" : "Pause");
        h.raw("</button></form>");
      }
      h.raw("</td></tr>");
    }
    return h.raw("</table>").toString();
  }

  private static String when(ScheduleSpec spec) {
    if (spec instanceof ScheduleSpec.Cron c) {
      return c.expression();
    }
    if (spec instanceof ScheduleSpec.FixedRate r) {
      return "every " + r.period();
    }
    return "after each run, " + ((ScheduleSpec.FixedDelay) spec).delay();
  }

  private static String zone(ScheduleSpec spec) {
    return spec instanceof ScheduleSpec.Cron c ? c.zone().getId() : "-";
  }

  private String receipts(View v) {
    Html h = new Html().raw("<h1>Receipts</h1><form method=\"get\"><label>scope <input ");
    h.raw("name=\"scope\" value=\"").text(v.param("scope")).raw("\"></label> <label>key <input ");
    h.raw("name=\"key\" value=\"").text(v.param("key")).raw("\"></label> <button>Look up</button>");
    h.raw("</form>");
    if (!v.param("key").isEmpty()) {
      IntentKey key = IntentKey.of(v.param("scope"), v.param("key"));
      Optional<dev.onceonly.Receipt> found = once.receipts().find(key);
      if (found.isEmpty()) {
        h.raw("<p>No receipt for that scope and key.</p>");
      } else {
        dev.onceonly.Receipt r = found.get();
        h.raw("<dl><dt>operation</dt><dd>").text(r.operation()).raw("</dd><dt>fingerprint</dt>");
        h.raw("<dd>").text(r.fingerprint()).raw("</dd><dt>created at</dt><dd>");
        h.text(r.createdAt()).raw("</dd><dt>result kept until</dt><dd>").text(r.expiresAt());
        h.raw("</dd><dt>forgotten at</dt><dd>").text(r.forgetAt()).raw("</dd><dt>result</dt><dd>");
        h.capped(r.resultJson()).raw("</dd></dl>");
      }
    }
    List<dev.onceonly.Intent> pending = once.intents().pending(LISTED);
    h.raw("<h2>Intents pending</h2><p>").text(pending.size());
    h.raw(pending.size() == LISTED ? " (the first ones)" : "").raw(" without a receipt</p>");
    h.raw("<table><tr><th>scope</th><th>key</th><th>operation</th><th>registered</th></tr>");
    for (dev.onceonly.Intent i : pending) {
      h.raw("<tr>").td(i.key().scope()).td(i.key().key()).td(i.operation());
      h.td(i.registeredAt()).raw("</tr>");
    }
    h.raw("</table>");
    if (v.mayAct() && reconciles) {
      form(h, v, "/receipts/reconcile");
      h.raw("<button>Run the reconciler once</button></form>");
    }
    return h.toString();
  }

  private String audit() {
    Audit.Report r = once.maintenance().audit(auditRules);
    Html h = new Html().raw("<h1>Audit</h1><p>Run at ").text(r.at()).raw(": ");
    h.text(r.clean() ? "nothing disagrees" : Html.count(r.total()) + " findings").raw("</p>");
    h.raw("<table><tr><th>kind</th><th>count</th></tr>");
    for (Map.Entry<Audit.Kind, Long> e : r.counts().entrySet()) {
      h.raw("<tr>").td(e.getKey()).td(Html.count(e.getValue())).raw("</tr>");
    }
    h.raw("</table><table><tr><th>kind</th><th>where</th><th>key</th><th>detail</th></tr>");
    for (Audit.Finding f : r.findings()) {
      h.raw("<tr>").td(f.kind()).td(f.where()).td(f.key()).td(f.detail()).raw("</tr>");
    }
    return h.raw("</table>").toString();
  }

  /** Opens a POST form to an action, with its CSRF field. */
  static void form(Html h, View v, String action) {
    h.raw("<form method=\"post\" action=\"").text(v.base() + action).raw("\">");
    h.hidden(Guard.CSRF_FIELD, v.csrf());
  }

  private static void actionButton(
      Html h, View v, String action, String queue, String key, String label) {
    form(h, v, action);
    h.hiddenExact("queue", queue)
        .hiddenExact("key", key)
        .raw("<button>")
        .text(label)
        .raw("</button></form>");
  }

  static String encode(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
  }
}
