package dev.onceonly.dashboard;

import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet.NotFound;
import dev.onceonly.dashboard.DashboardServlet.View;
import dev.onceonly.maintenance.Maintenance.DeadLetterSummary;
import dev.onceonly.maintenance.StoreStatus;
import dev.onceonly.queue.DeadLetter;
import java.util.List;

/**
 * The Dead letters pages: a page of them newest first, filtered by queue, with one-at-a-time and
 * bulk actions; one dead letter with its payload, its error and its failed attempts.
 */
final class DeadLettersPage {
  /** Dead letters per page. */
  static final int PAGE = 50;

  private final OnceOnly once;

  DeadLettersPage(OnceOnly once) {
    this.once = once;
  }

  /** {@code /dead-letters}: a page of dead letters, newest first, and the bulk form. */
  String list(View v) {
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
      h.text(Pages.encode(d.queue()))
          .text("&key=" + Pages.encode(d.key()))
          .raw("\">")
          .text(d.key());
      h.raw("</a></td>").td(d.attempts()).td(d.lastError()).td(d.deadAt()).raw("<td>");
      if (v.mayAct()) {
        actionButton(h, v, "/dead-letters/requeue", d.queue(), d.key(), "Requeue");
        actionButton(h, v, "/dead-letters/delete", d.queue(), d.key(), "Delete");
      }
      h.raw("</td></tr>");
    }
    h.raw("</table><p class=\"pager\">");
    String filter = queue.isEmpty() ? "" : "queue=" + Pages.encode(queue) + "&";
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
      h.raw("<h2>Requeue or delete a filtered set</h2><p>At most ")
          .text(Html.count(BulkAction.MAX_BULK));
      h.raw(" dead letters per action, newest first, among the newest ");
      h.text(Html.count(BulkAction.MAX_SCANNED)).raw("; a second page lists the ones it takes");
      h.raw(" and acts on those alone once you confirm.</p>");
      Pages.form(h, v, "/dead-letters/bulk");
      h.raw("<label>queue <input name=\"queue\" value=\"").text(queue).raw("\"></label> ");
      h.raw("<label>error contains <input name=\"error\"></label> <label>at most <input ");
      h.raw("name=\"max\" value=\"100\" size=\"5\"></label> <select name=\"action\"><option>");
      h.raw("requeue</option><option>delete</option></select> <button>Review</button></form>");
    }
    return h.toString();
  }

  /**
   * {@code /dead-letter}: one dead letter with its payload and error, cut for display, and the
   * errors of its failed attempts.
   */
  String one(View v) {
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
    AttemptErrorsTable.append(h, once.queue().attemptErrors(d.queue(), d.key()));
    if (v.mayAct()) {
      actionButton(h, v, "/dead-letters/requeue", d.queue(), d.key(), "Requeue");
      actionButton(h, v, "/dead-letters/delete", d.queue(), d.key(), "Delete");
    }
    return h.toString();
  }

  private static void actionButton(
      Html h, View v, String action, String queue, String key, String label) {
    Pages.form(h, v, action);
    h.hiddenExact("queue", queue)
        .hiddenExact("key", key)
        .raw("<button>")
        .text(label)
        .raw("</button></form>");
  }
}
