package dev.onceonly.dashboard;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.dashboard.DashboardServlet.NotFound;
import dev.onceonly.dashboard.DashboardServlet.View;
import dev.onceonly.external.ClaimState;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The dashboard's actions, each one call of the public APIs. Arguments are checked before anything
 * is written: a refused action changes nothing.
 */
final class Actions {
  /** The longest reason stored with a decision on an unknown outcome. */
  static final int MAX_REASON = 500;

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
      case "/dead-letters/bulk" -> new BulkAction(once).run(v);
      case "/queues/withdraw" -> withdraw(v);
      case "/queues/pause" -> pauseQueue(v, true);
      case "/queues/resume" -> pauseQueue(v, false);
      case "/unknown/resolve" -> resolve(v);
      case "/schedules/pause" -> pause(v, true);
      case "/schedules/resume" -> pause(v, false);
      case "/schedules/run" -> new SchedulesPage(once).runNow(v);
      case "/receipts/reconcile" -> reconcile();
      case "/workflows/cancel" -> new WorkflowsPage(once).cancel(v);
      case "/workflows/retry" -> new WorkflowsPage(once).retry(v);
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

  /**
   * Pauses or resumes a queue for every instance; the pause is recorded as the signed-in actor's.
   */
  private String pauseQueue(View v, boolean pause) {
    String queue = required(v, "queue");
    String reason = v.param("reason").strip();
    boolean done =
        pause
            ? once.queue().pause(queue, v.actor(), reason.isEmpty() ? null : reason)
            : once.queue().resume(queue);
    String unchanged = pause ? "it was paused already" : "it was not paused";
    return done(
        v, done ? (pause ? "Paused" : "Resumed") : "Unchanged (" + unchanged + ")", "queue", queue);
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
}
