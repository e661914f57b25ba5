package dev.onceonly.dashboard;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.dashboard.DashboardServlet.NotFound;
import dev.onceonly.dashboard.DashboardServlet.View;
import dev.onceonly.external.ClaimState;
import dev.onceonly.maintenance.Maintenance.DeadLetterSummary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The dashboard's actions, each one call of the public APIs. Arguments are checked before anything
 * is written: a refused action changes nothing.
 */
final class Actions {
  /** The most dead letters one bulk action touches. */
  static final int MAX_BULK = 1_000;

  /** The longest reason stored with a decision on an unknown outcome. */
  static final int MAX_REASON = 500;

  /** The dead letters a bulk action scans for its error filter, newest first. */
  static final int MAX_SCANNED = 10_000;

  private final OnceOnly once;
  private final Reconciler reconciler;

  Actions(OnceOnly once, Reconciler reconciler) {
    this.once = once;
    this.reconciler = reconciler;
  }

  /** Runs the action at {@code path} and returns the page that says what it did. */
  String run(String path, View v) {
    return switch (path) {
      case "/dead-letters/requeue" -> requeue(v);
      case "/dead-letters/delete" -> delete(v);
      case "/dead-letters/bulk" -> bulk(v);
      case "/queues/withdraw" -> withdraw(v);
      case "/unknown/resolve" -> resolve(v);
      case "/schedules/pause" -> pause(v, true);
      case "/schedules/resume" -> pause(v, false);
      case "/schedules/run" -> new SchedulesPage(once).runNow(v);
      case "/receipts/reconcile" -> reconcile();
      default -> throw new NotFound("no action at this path");
    };
  }

  private String requeue(View v) {
    String queue = required(v, "queue");
    String key = required(v, "key");
    boolean done = once.queue().requeue(queue, key);
    return done(
        v,
        done ? "Requeued" : "Not requeued (no such dead letter, or the key is in use)",
        queue,
        key);
  }

  private String delete(View v) {
    String queue = required(v, "queue");
    String key = required(v, "key");
    boolean done = once.maintenance().deleteDeadLetter(queue, key);
    return done(v, done ? "Deleted" : "Not deleted (no such dead letter)", queue, key);
  }

  private String withdraw(View v) {
    String queue = required(v, "queue");
    String key = required(v, "key");
    boolean done = once.queue().withdraw(queue, key);
    return done(
        v, done ? "Withdrew" : "Nothing withdrawn (no waiting message of that key)", queue, key);
  }

  private String bulk(View v) {
    String queue = v.exact("queue");
    String error = v.exact("error");
    String action = v.param("action");
    if (!action.equals("requeue") && !action.equals("delete")) {
      throw new IllegalArgumentException("action must be requeue or delete: " + action);
    }
    int max = bounded(v.param("max"));
    List<DeadLetterSummary> chosen = chosen(queue, error, max);
    if (!v.param("confirm").equals("yes")) {
      return confirmation(v, queue, error, action, max, chosen);
    }
    int done = 0;
    for (DeadLetterSummary d : chosen) {
      boolean ok =
          action.equals("requeue")
              ? once.queue().requeue(d.queue(), d.key())
              : once.maintenance().deleteDeadLetter(d.queue(), d.key());
      done += ok ? 1 : 0;
    }
    return new Html()
        .raw("<h1>Done</h1><p class=\"done\">")
        .text(action.equals("requeue") ? "Requeued " : "Deleted ")
        .text(done + " of " + chosen.size())
        .raw(" dead letters.</p>")
        .link(v.base(), "/dead-letters", "Back to the dead letters")
        .toString();
  }

  /** The dead letters a bulk action takes: newest first, filtered, at most {@code max}. */
  private List<DeadLetterSummary> chosen(String queue, String error, int max) {
    List<DeadLetterSummary> out = new ArrayList<>();
    for (long offset = 0; offset < MAX_SCANNED && out.size() < max; offset += MAX_BULK) {
      List<DeadLetterSummary> page =
          once.maintenance().recentDeadLetters(queue.isEmpty() ? null : queue, offset, MAX_BULK);
      for (DeadLetterSummary d : page) {
        if (out.size() < max
            && (error.isEmpty() || (d.lastError() != null && d.lastError().contains(error)))) {
          out.add(d);
        }
      }
      if (page.size() < MAX_BULK) {
        break;
      }
    }
    return out;
  }

  private static String confirmation(
      View v, String queue, String error, String action, int max, List<DeadLetterSummary> chosen) {
    Html h = new Html().raw("<h1>Confirm</h1><p class=\"confirm\">This will ").text(action);
    h.raw(" ").text(chosen.size()).raw(" dead letters (newest first");
    h.text(queue.isEmpty() ? "" : ", queue " + queue);
    h.text(error.isEmpty() ? "" : ", error containing " + error).raw(", at most ").text(max);
    h.raw("). The set is read again when you confirm.</p><ul>");
    for (DeadLetterSummary d : chosen.subList(0, Math.min(20, chosen.size()))) {
      h.raw("<li>").text(d.queue() + " / " + d.key()).raw("</li>");
    }
    h.raw(chosen.size() > 20 ? "<li>...</li>" : "").raw("</ul>");
    Pages.form(h, v, "/dead-letters/bulk");
    h.hiddenExact("queue", queue).hiddenExact("error", error).hidden("action", action);
    h.hidden("max", String.valueOf(max)).hidden("confirm", "yes");
    h.raw("<button>Yes, ").text(action).raw(" them</button></form>");
    return h.link(v.base(), "/dead-letters", "Cancel").toString();
  }

  private String resolve(View v) {
    IntentKey key = IntentKey.of(required(v, "scope"), required(v, "key"));
    String reason = required(v, "reason").strip();
    if (reason.isEmpty() || reason.length() > MAX_REASON) {
      throw new IllegalArgumentException(
          "a reason of 1 to " + MAX_REASON + " characters is required");
    }
    String outcome = v.param("outcome");
    Optional<ClaimState> state;
    if (outcome.equals("done")) {
      Map<String, String> decision = new LinkedHashMap<>();
      decision.put("resolvedBy", v.actor());
      decision.put("reason", reason);
      state = once.externalEffects().resolveDone(key, decision);
    } else if (outcome.equals("not-done")) {
      state = once.externalEffects().resolveNotDone(key, v.actor() + ": " + reason);
    } else {
      throw new IllegalArgumentException("outcome must be done or not-done: " + outcome);
    }
    return done(
        v,
        state.map(s -> "Settled as " + s).orElse("Not settled (it was no longer unknown)"),
        key.scope(),
        key.key());
  }

  private String pause(View v, boolean pause) {
    String name = required(v, "name");
    boolean done = pause ? once.schedules().pause(name) : once.schedules().resume(name);
    String what = pause ? "Paused" : "Resumed";
    return done(v, done ? what : "Unchanged (no such schedule in that state)", "schedule", name);
  }

  private String reconcile() {
    if (reconciler == null) {
      throw new NotFound("this dashboard has no reconciler");
    }
    Reconciler.Report r = reconciler.reconcile();
    return new Html()
        .raw("<h1>Reconciled</h1><p class=\"done\">")
        .text(
            "examined "
                + r.examined()
                + ", published "
                + r.published()
                + ", already queued "
                + r.alreadyQueued()
                + ", conflicts "
                + r.conflicts()
                + ", dead-lettered "
                + r.deadLettered())
        .raw("</p>")
        .toString();
  }

  private static String done(View v, String what, String where, String key) {
    return new Html()
        .raw("<h1>Done</h1><p class=\"done\">")
        .text(what + ": " + where + " / " + key)
        .raw("</p><p>")
        .link(v.base(), "/", "Back to the overview")
        .raw("</p>")
        .toString();
  }

  private static String required(View v, String name) {
    String value = v.exact(name);
    if (value.isEmpty()) {
      throw new IllegalArgumentException(name + " is required");
    }
    return value;
  }

  private static int bounded(String max) {
    int n;
    try {
      n = Integer.parseInt(max.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("at most must be a number from 1 to " + MAX_BULK);
    }
    if (n < 1 || n > MAX_BULK) {
      throw new IllegalArgumentException("at most must be from 1 to " + MAX_BULK + ": " + n);
    }
    return n;
  }
}
