package dev.onceonly.dashboard;

import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet.NotFound;
import dev.onceonly.dashboard.DashboardServlet.View;
import dev.onceonly.workflow.StepState;
import dev.onceonly.workflow.WorkflowRun;
import dev.onceonly.workflow.WorkflowState;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Workflows pages: the runs of a state with the count of each state, and one run with its steps
 * drawn as a small graph in server-side SVG (boxes by depth, an edge per dependency, a fill per
 * state named in a legend in text), their table, and the run's cancel and retry actions.
 */
final class WorkflowsPage {
  /** Each state's fill and its name in the legend, in the order the legend lists them. */
  static final Map<StepState, String> FILLS =
      new java.util.EnumMap<>(
          Map.of(
              StepState.WAITING, "#d0d7de",
              StepState.QUEUED, "#54aeff",
              StepState.COMPLETED, "#4ac26b",
              StepState.FAILED, "#ff8182",
              StepState.CANCELLED, "#eac54f"));

  private static final int BOX_W = 150;
  private static final int BOX_H = 40;
  private static final int GAP_X = 60;
  private static final int GAP_Y = 20;

  private final OnceOnly once;

  WorkflowsPage(OnceOnly once) {
    this.once = once;
  }

  /** {@code /workflows?state=S}: the count of runs in each state and the oldest runs of one. */
  String list(View v) {
    WorkflowState state =
        v.param("state").isEmpty() ? WorkflowState.RUNNING : state(v.param("state"));
    Html h = new Html().raw("<h1>Workflows</h1><p>");
    for (WorkflowState s : WorkflowState.values()) {
      long n = once.workflows().count(s);
      h.raw(s == state ? "<strong>" : "")
          .link(v.base(), "/workflows?state=" + s.name(), s.name().toLowerCase(Locale.ROOT))
          .raw(" ")
          .text(Html.count(n))
          .raw(s == state ? "</strong>" : "")
          .raw(" ");
    }
    List<WorkflowRun> runs = once.workflows().list(state, Pages.LISTED);
    h.raw("</p><p>").text(runs.size());
    h.raw(runs.size() == Pages.LISTED ? " (the oldest ones)" : "").raw(" ");
    h.text(state.name().toLowerCase(Locale.ROOT)).raw(" run(s), oldest first</p>");
    h.raw("<table id=\"workflows\"><tr><th>id</th><th>workflow</th><th>steps done</th>");
    h.raw("<th>started</th><th>changed</th><th>error</th></tr>");
    for (WorkflowRun r : runs) {
      long done = r.steps().stream().filter(s -> s.state() == StepState.COMPLETED).count();
      h.raw("<tr><td>")
          .link(v.base(), "/workflow?id=" + Pages.encode(r.id()), r.id())
          .raw("</td>")
          .td(r.name())
          .td(done + "/" + r.steps().size())
          .td(r.createdAt())
          .td(r.updatedAt())
          .td(r.error() == null ? "" : r.error())
          .raw("</tr>");
    }
    return h.raw("</table>").toString();
  }

  /** {@code /workflow?id=ID}: one run, its graph, its steps and its actions. */
  String one(View v) {
    String id = v.exact("id");
    WorkflowRun run =
        once.workflows().find(id).orElseThrow(() -> new NotFound("no workflow run " + id));
    Html h = new Html().raw("<h1>Workflow run ").text(run.id()).raw("</h1><dl>");
    h.raw("<dt>workflow</dt><dd>").text(run.name()).raw("</dd><dt>state</dt><dd>");
    h.text(run.state()).raw("</dd><dt>started</dt><dd>").text(run.createdAt());
    h.raw("</dd><dt>changed</dt><dd>").text(run.updatedAt()).raw("</dd>");
    if (run.error() != null) {
      h.raw("<dt>error</dt><dd>").text(run.error()).raw("</dd>");
    }
    h.raw("</dl>");
    graph(h, run);
    h.raw("<table id=\"steps\"><tr><th>step</th><th>queue</th><th>after</th><th>state</th>");
    h.raw("<th>attempts</th><th>compensation</th><th>error</th><th>result</th></tr>");
    for (WorkflowRun.StepRun s : run.steps()) {
      h.raw("<tr>").td(s.name()).td(s.queue()).td(String.join(", ", s.after())).td(s.state());
      h.td(s.attempts()).td(s.compensation().map(Enum::name).orElse(""));
      h.td(s.error() == null ? "" : s.error()).raw("<td>");
      h.capped(s.result().isNull() ? "" : s.result().toString()).raw("</td></tr>");
    }
    h.raw("</table>");
    if (v.mayAct()) {
      actions(h, v, run);
    }
    return h.toString();
  }

  /** The run's steps as boxes by depth (the longest path of dependencies to them) and edges. */
  static void graph(Html h, WorkflowRun run) {
    Map<String, Integer> depth = new HashMap<>();
    Map<Integer, Integer> rows = new HashMap<>();
    Map<String, int[]> at = new HashMap<>();
    for (WorkflowRun.StepRun s : run.steps()) { // declared after what they depend on
      int d = s.after().stream().mapToInt(a -> depth.getOrDefault(a, 0) + 1).max().orElse(0);
      depth.put(s.name(), d);
      int row = rows.merge(d, 1, Integer::sum) - 1;
      at.put(s.name(), new int[] {10 + d * (BOX_W + GAP_X), 10 + row * (BOX_H + GAP_Y)});
    }
    int width =
        20 + (depth.values().stream().max(Integer::compare).orElse(0) + 1) * (BOX_W + GAP_X);
    int height = 20 + rows.values().stream().max(Integer::compare).orElse(1) * (BOX_H + GAP_Y);
    h.raw("<svg id=\"graph\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .text(width)
        .raw("\" height=\"")
        .text(height)
        .raw("\"><title>")
        .text("steps of " + run.id())
        .raw("</title>");
    for (WorkflowRun.StepRun s : run.steps()) {
      int[] to = at.get(s.name());
      for (String a : s.after()) {
        int[] from = at.get(a);
        if (from != null) {
          h.raw("<line stroke=\"#57606a\" x1=\"").text(from[0] + BOX_W).raw("\" y1=\"");
          h.text(from[1] + BOX_H / 2).raw("\" x2=\"").text(to[0]).raw("\" y2=\"");
          h.text(to[1] + BOX_H / 2).raw("\"/>");
        }
      }
    }
    for (WorkflowRun.StepRun s : run.steps()) {
      int[] p = at.get(s.name());
      h.raw("<g class=\"step\"><rect rx=\"4\" stroke=\"#24292f\" fill=\"")
          .text(FILLS.get(s.state()))
          .raw("\" x=\"")
          .text(p[0])
          .raw("\" y=\"")
          .text(p[1])
          .raw("\" width=\"")
          .text(BOX_W)
          .raw("\" height=\"")
          .text(BOX_H)
          .raw("\"/><text font-size=\"12\" x=\"")
          .text(p[0] + 6)
          .raw("\" y=\"")
          .text(p[1] + 16)
          .raw("\">")
          .text(s.name())
          .raw("</text><text font-size=\"11\" x=\"")
          .text(p[0] + 6)
          .raw("\" y=\"")
          .text(p[1] + 32)
          .raw("\">")
          .text(s.state().name().toLowerCase(Locale.ROOT))
          .raw("</text></g>");
    }
    h.raw("</svg><p id=\"legend\">Legend: ");
    for (Map.Entry<StepState, String> e : FILLS.entrySet()) {
      // A fill attribute, not a style: the page's policy allows no inline style.
      h.raw("<svg width=\"12\" height=\"12\"><rect width=\"12\" height=\"12\" fill=\"");
      h.text(e.getValue()).raw("\"/></svg> ");
      h.text(e.getKey().name().toLowerCase(Locale.ROOT) + " (" + e.getValue() + ")").raw("; ");
    }
    h.raw("each box also names its state in words.</p>");
  }

  private static void actions(Html h, View v, WorkflowRun run) {
    if (run.state() == WorkflowState.RUNNING) {
      Pages.form(h, v, "/workflows/cancel");
      h.hiddenExact("id", run.id());
      h.raw("<label><input type=\"checkbox\" name=\"compensate\" value=\"yes\"> and run the ");
      h.raw("compensations of its completed steps</label> <button>Cancel run ");
      h.text(run.id()).raw("</button></form>");
    }
    if (run.state() == WorkflowState.FAILED || run.state() == WorkflowState.CANCELLED) {
      Pages.form(h, v, "/workflows/retry");
      h.hiddenExact("id", run.id());
      h.raw("<button>Retry run ").text(run.id()).raw("</button> (its failed, cancelled and ");
      h.raw("undone steps run again; completed ones keep their results)</form>");
    }
  }

  /** {@code POST /workflows/cancel}: cancels the run the form named. */
  String cancel(View v) {
    String id = v.exact("id");
    boolean compensate = v.param("compensate").equals("yes");
    boolean done = once.workflows().cancel(id, compensate);
    return done(
        v,
        id,
        done
            ? compensate ? "Cancelled; its compensations run" : "Cancelled"
            : "Not cancelled (no such run, or it is no longer running)");
  }

  /** {@code POST /workflows/retry}: retries the run the form named. */
  String retry(View v) {
    String id = v.exact("id");
    boolean done = once.workflows().retry(id);
    return done(
        v, id, done ? "Retried" : "Not retried (no such run, or it is not failed or cancelled)");
  }

  private static String done(View v, String id, String what) {
    if (id.isEmpty()) {
      throw new IllegalArgumentException("id is required");
    }
    return new Html()
        .raw("<h1>Done</h1><p class=\"done\">")
        .text(what + ": workflow run " + id)
        .raw("</p><p>")
        .link(v.base(), "/workflow?id=" + Pages.encode(id), "Back to the run")
        .raw("</p>")
        .toString();
  }

  private static WorkflowState state(String name) {
    try {
      return WorkflowState.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("no workflow state " + name);
    }
  }
}
