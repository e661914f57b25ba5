package dev.onceonly.dashboard;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet.NotFound;
import dev.onceonly.dashboard.DashboardServlet.View;
import dev.onceonly.maintenance.Audit;
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
  private final OverviewPage overview;
  private final UnknownPage unknown;
  private final QueuesPage queues;
  private final DeadLettersPage deadLetters;
  private final SchedulesPage schedules;
  private final WorkflowsPage workflows;

  Pages(OnceOnly once, boolean reconciles, Audit.Rules auditRules, OverviewPage overview) {
    this.once = once;
    this.reconciles = reconciles;
    this.auditRules = auditRules;
    this.overview = overview;
    this.unknown = new UnknownPage(once);
    this.queues = new QueuesPage(once);
    this.deadLetters = new DeadLettersPage(once);
    this.schedules = new SchedulesPage(once);
    this.workflows = new WorkflowsPage(once);
  }

  String render(String path, View v) {
    return switch (path) {
      case "/" -> overview.render(v.base());
      case "/queues" -> queues.queues(v);
      case "/message" -> queues.message(v);
      case "/dead-letters" -> deadLetters.list(v);
      case "/dead-letter" -> deadLetters.one(v);
      case "/unknown" -> unknown.render(v);
      case "/schedules" -> schedules.list(v);
      case "/workflows" -> workflows.list(v);
      case "/workflow" -> workflows.one(v);
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
      {"/workflows", "Workflows"},
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
    v.formFields().forEach(h::hidden);
  }

  static String encode(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
  }
}
