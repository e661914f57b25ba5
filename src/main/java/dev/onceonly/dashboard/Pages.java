package dev.onceonly.dashboard;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet.NotFound;
import dev.onceonly.dashboard.DashboardServlet.View;
import dev.onceonly.external.ClaimRecord;
import dev.onceonly.maintenance.Audit;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.maintenance.StoreStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The dashboard's pages: each reads through the public APIs and renders HTML. */
final class Pages {
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
  private final History history;
  private final QueuesPage queues;
  private final DeadLettersPage deadLetters;
  private final SchedulesPage schedules;

  Pages(OnceOnly once, boolean reconciles, Audit.Rules auditRules, History history) {
    this.once = once;
    this.reconciles = reconciles;
    this.auditRules = auditRules;
    this.history = history;
    this.queues = new QueuesPage(once);
    this.deadLetters = new DeadLettersPage(once);
    this.schedules = new SchedulesPage(once);
  }

  String render(String path, View v) {
    return switch (path) {
      case "/" -> overview(v);
      case "/queues" -> queues.queues(v);
      case "/message" -> queues.message(v);
      case "/dead-letters" -> deadLetters.list(v);
      case "/dead-letter" -> deadLetters.one(v);
      case "/unknown" -> unknown(v);
      case "/schedules" -> schedules.list(v);
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

  private String overview(View v) {
    StoreStatus s = once.maintenance().status();
    history.record(s);
    Maintenance.SchemaVersion schema = once.maintenance().schemaVersion();
    Html h =
        new Html().raw("<h1>Overview</h1><p>").text(s.database()).raw(", read at ").text(s.at());
    h.raw("; schema version ").text(schema.found()).raw(" (this library needs ");
    h.text(schema.required()).raw(")</p><h2>Counts</h2><table><tr><th>table</th><th>state</th>");
    h.raw("<th>rows</th></tr>");
    row(h, "intents", "registered", s.intents());
    row(h, "intents", "pending (no receipt)", s.pendingIntents());
    row(h, "receipts", "live", s.receiptsLive());
    row(h, "receipts", "expired", s.receiptsExpired());
    row(h, "receipts", "tombstones", s.tombstones());
    for (Map.Entry<String, StoreStatus.QueueCounts> q : s.messages().entrySet()) {
      row(h, "messages " + q.getKey(), "due", q.getValue().due());
      row(h, "messages " + q.getKey(), "leased", q.getValue().leased());
      row(h, "messages " + q.getKey(), "delayed", q.getValue().delayed());
    }
    for (Map.Entry<String, Long> d : s.deadLetters().entrySet()) {
      row(h, "dead letters", d.getKey(), d.getValue());
    }
    row(h, "rejections", "kept", s.rejections());
    for (Map.Entry<String, Long> c : s.claims().entrySet()) {
      row(h, "claims", c.getKey(), c.getValue());
    }
    h.raw("</table><h2>Oldest</h2><p>Oldest pending intent: ");
    if (s.oldestPending().isPresent()) {
      StoreStatus.PendingIntent p = s.oldestPending().get();
      h.text(p.key().scope() + " / " + p.key().key()).raw(", registered ").text(p.registeredAt());
      h.raw(", age ").text(Html.age(p.age()));
    } else {
      h.raw("none");
    }
    h.raw("</p><p>Oldest due message: ");
    h.text(s.oldestDueAge().map(a -> "waiting for " + Html.age(a)).orElse("none")).raw("</p>");
    h.raw("<h2>Queue depth over time</h2>");
    History.chart(h, history.samples());
    return h.toString();
  }

  private static void row(Html h, String table, String state, long n) {
    h.raw("<tr>").td(table).td(state).raw("<td class=\"n\">").text(Html.count(n)).raw("</td></tr>");
  }

  private String unknown(View v) {
    List<ClaimRecord> claims = once.externalEffects().unknown(LISTED);
    Instant now = once.maintenance().status().at();
    Html h = new Html().raw("<h1>Unknown outcomes</h1><p>").text(claims.size());
    h.raw(claims.size() == LISTED ? " (the first ones)" : "").raw(" waiting for a decision</p>");
    h.raw("<table id=\"unknown\"><tr><th>scope</th><th>key</th><th>operation</th><th>attempts");
    h.raw("</th><th>evidence</th><th>age</th><th>decide</th></tr>");
    for (ClaimRecord c : claims) {
      h.raw("<tr>").td(c.key().scope()).td(c.key().key()).td(c.operation()).td(c.attempts());
      h.raw("<td>downstream key ").text(c.downstreamKey()).raw("; maybe applied: ");
      h.text(c.maybeApplied()).raw("; last error: ").text(c.lastError()).raw("; arguments: ");
      h.capped(c.argumentsJson()).raw("</td>").td(Html.age(Duration.between(c.updatedAt(), now)));
      h.raw("<td>");
      if (v.mayAct()) {
        form(h, v, "/unknown/resolve");
        h.hiddenExact("scope", c.key().scope()).hiddenExact("key", c.key().key());
        h.raw("<input name=\"reason\" placeholder=\"reason (stored)\" required maxlength=\"500\">");
        h.raw(" <button name=\"outcome\" value=\"done\">Done</button> <button name=\"outcome\" ");
        h.raw("value=\"not-done\">Not done</button></form>");
      }
      h.raw("</td></tr>");
    }
    return h.raw("</table>").toString();
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

  static String encode(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
  }
}
