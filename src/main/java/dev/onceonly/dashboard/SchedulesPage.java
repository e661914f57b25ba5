package dev.onceonly.dashboard;

import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet.View;
import dev.onceonly.queue.Schedule;
import dev.onceonly.queue.ScheduleSpec;
import dev.onceonly.queue.SendResult;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The Schedules page: each schedule's expression or period, zone, next slots (by the same slot
 * arithmetic that fires them), last run and state; pause, resume and run the next slot now.
 */
final class SchedulesPage {
  /** The next slots shown per schedule. */
  static final int SLOTS = 5;

  private final OnceOnly once;

  SchedulesPage(OnceOnly once) {
    this.once = once;
  }

  /** {@code /schedules}: every schedule, by name. */
  String list(View v) {
    Html h = new Html().raw("<h1>Schedules</h1><table id=\"schedules\"><tr><th>name</th>");
    h.raw("<th>queue</th><th>when</th><th>zone</th><th>next slots</th><th>last run</th>");
    h.raw("<th>state</th><th></th></tr>");
    for (Schedule s : once.schedules().list()) {
      ZoneId zone = zone(s.spec());
      h.raw("<tr>").td(s.name()).td(s.queue()).td(when(s.spec())).td(zone.getId()).raw("<td><ol>");
      for (Instant slot : once.schedules().upcoming(s.name(), SLOTS)) {
        h.raw("<li>").text(local(slot, zone)).raw("</li>");
      }
      h.raw("</ol></td><td>");
      lastRun(h, s, zone);
      h.raw("</td>").td(s.paused() ? "paused" : "running").raw("<td>");
      if (v.mayAct()) {
        actions(h, v, s);
      }
      h.raw("</td></tr>");
    }
    h.raw("</table><p>Run now sends the run of the next slot at once, named by that slot;");
    h.raw(" the slot is then not fired again at its time. Pressed twice, or by two people at");
    h.raw(" once, it sends one run: the second is told the slot is no longer next.</p>");
    return h.toString();
  }

  private void lastRun(Html h, Schedule s, ZoneId zone) {
    if (s.lastSlot().isEmpty()) {
      h.raw("none yet");
      return;
    }
    String key = Schedule.runKey(s.name(), s.lastSlot().get());
    h.text(local(s.lastSlot().get(), zone)).raw("<br>");
    var message = once.maintenance().findMessage(s.queue(), key);
    if (message.isPresent()) {
      h.text("its message: " + message.get().state() + ", attempts " + message.get().attempts());
    } else if (once.queue().findDeadLetter(s.queue(), key).isPresent()) {
      h.raw("its message: dead-lettered");
    } else {
      h.raw("its message has left the queue (handled or withdrawn)");
    }
  }

  private static void actions(Html h, View v, Schedule s) {
    Pages.form(h, v, s.paused() ? "/schedules/resume" : "/schedules/pause");
    h.hiddenExact("name", s.name()).raw("<button>").raw(s.paused() ? "Resume" : "Pause");
    h.raw("</button></form>");
    if (s.nextRun().isPresent()) {
      Pages.form(h, v, "/schedules/run");
      h.hiddenExact("name", s.name()).hidden("slot", s.nextRun().get().toString());
      h.raw("<button class=\"run\">Run ").text(s.nextRun().get()).raw(" now</button></form>");
    }
  }

  /** {@code POST /schedules/run}: runs the slot the form carries, if it is still the next. */
  String runNow(View v) {
    String name = v.exact("name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name is required");
    }
    Instant slot;
    try {
      slot = Instant.parse(v.param("slot"));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("slot must be an instant such as 2030-01-15T06:00:00Z");
    }
    Optional<SendResult> sent = once.schedules().runNow(name, slot);
    String what =
        sent.map(
                r ->
                    (r.status() == SendResult.Status.SENT
                            ? "Sent now: "
                            : "Not sent again, a run of that key is still queued: ")
                        + r.key())
            .orElse("Not run: that slot is no longer the next one of this schedule");
    return new Html()
        .raw("<h1>Run now</h1><p class=\"done\">")
        .text(what)
        .raw("</p><p>")
        .link(v.base(), "/schedules", "Back to the schedules")
        .raw("</p>")
        .toString();
  }

  private static String local(Instant slot, ZoneId zone) {
    return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(slot.atZone(zone));
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

  private static ZoneId zone(ScheduleSpec spec) {
    return spec instanceof ScheduleSpec.Cron c ? c.zone() : ZoneOffset.UTC;
  }
}
