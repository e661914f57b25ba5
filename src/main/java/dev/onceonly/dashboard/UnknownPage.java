package dev.onceonly.dashboard;

import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet.View;
import dev.onceonly.external.ClaimRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The unknown outcomes: each claim with its evidence and age, and the forms that settle it as done
 * or not done with a stored reason. It lists through {@link
 * dev.onceonly.external.ExternalEffects#listUnknown}, which only reads: a claim whose lease ran out
 * without a report shows here once a sweep (a reconciliation, {@code onceonly unknown}) has marked
 * it unknown, and reading this page never writes. Each claim shows its last status probe's answer
 * (escaped like every value), or that none ran.
 */
final class UnknownPage {
  private final OnceOnly once;

  UnknownPage(OnceOnly once) {
    this.once = once;
  }

  String render(View v) {
    List<ClaimRecord> claims = once.externalEffects().listUnknown(Pages.LISTED);
    Instant now = once.maintenance().now();
    Html h = new Html().raw("<h1>Unknown outcomes</h1><p>").text(claims.size());
    h.raw(claims.size() == Pages.LISTED ? " (the first ones)" : "");
    h.raw(" waiting for a decision. A claim whose lease ran out without a report is listed once a");
    h.raw(" sweep marks it unknown; this page does not sweep.</p>");
    h.raw("<table id=\"unknown\"><tr><th>scope</th><th>key</th><th>operation</th><th>attempts");
    h.raw("</th><th>evidence</th><th>last probe</th><th>age</th><th>decide</th></tr>");
    for (ClaimRecord c : claims) {
      h.raw("<tr>").td(c.key().scope()).td(c.key().key()).td(c.operation()).td(c.attempts());
      h.raw("<td>downstream key ").text(c.downstreamKey()).raw("; maybe applied: ");
      h.text(c.maybeApplied()).raw("; last error: ").text(c.lastError()).raw("; arguments: ");
      h.capped(c.argumentsJson()).raw("</td>");
      probe(h, c, now);
      h.td(Html.age(Duration.between(c.updatedAt(), now)));
      h.raw("<td>");
      if (v.mayAct()) {
        Pages.form(h, v, "/unknown/resolve");
        h.hiddenExact("scope", c.key().scope()).hiddenExact("key", c.key().key());
        h.raw("<input name=\"reason\" placeholder=\"reason (stored)\" required maxlength=\"500\">");
        h.raw(" <button name=\"outcome\" value=\"done\">Done</button> <button name=\"outcome\" ");
        h.raw("value=\"not-done\">Not done</button></form>");
      }
      h.raw("</td></tr>");
    }
    return h.raw("</table>").toString();
  }

  /** The cell of a claim's last status probe: its answer, when, and when the next is due. */
  private static void probe(Html h, ClaimRecord c, Instant now) {
    h.raw("<td class=\"probe\">");
    if (c.lastProbeAnswer() == null) {
      h.raw("<em>none</em>");
    } else {
      h.text(c.lastProbeAnswer()).raw(" (");
      h.text(Html.age(Duration.between(c.lastProbeAt(), now))).raw(" ago, probe ");
      h.text(c.probes()).raw(")");
    }
    if (c.nextProbeAt() != null) {
      h.raw("; next not before ").text(c.nextProbeAt());
    }
    h.raw("</td>");
  }
}
