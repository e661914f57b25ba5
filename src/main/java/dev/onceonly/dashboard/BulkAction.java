package dev.onceonly.dashboard;

import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet.View;
import dev.onceonly.maintenance.Maintenance.DeadLetterSummary;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A bulk requeue or delete of dead letters, in two requests: the review lists the dead letters the
 * filter takes now, and its confirmation form carries exactly those (queue, key and the instant
 * each was dead-lettered). The confirmation acts on that list and nothing else: it does not read
 * the filter again, so dead letters that arrived after the review are never touched, and one that
 * was requeued and dead-lettered again since counts as gone (its instant differs).
 */
final class BulkAction {
  /** The most dead letters one bulk action touches. */
  static final int MAX_BULK = 1_000;

  /** The dead letters a bulk action scans for its error filter, newest first. */
  static final int MAX_SCANNED = 10_000;

  /** One reviewed dead letter, as the confirmation form carries it. */
  record Reviewed(String queue, String key, Instant deadAt) {}

  private final OnceOnly once;

  BulkAction(OnceOnly once) {
    this.once = once;
  }

  /**
   * Answers the bulk form: the review, or with {@code confirm=yes} the action on what it listed.
   */
  String run(View v) {
    String action = v.param("action");
    if (!action.equals("requeue") && !action.equals("delete")) {
      throw new IllegalArgumentException("action must be requeue or delete: " + action);
    }
    if (v.param("confirm").equals("yes")) {
      return confirmed(v, action, decode(v.param("reviewed")));
    }
    String queue = v.exact("queue");
    String error = v.exact("error");
    int max = bounded(v.param("max"));
    return review(v, queue, error, action, max, chosen(queue, error, max));
  }

  private String confirmed(View v, String action, List<Reviewed> reviewed) {
    boolean requeue = action.equals("requeue");
    int done = 0;
    for (Reviewed r : reviewed) {
      boolean ok =
          requeue
              ? once.queue().requeue(r.queue(), r.key(), r.deadAt())
              : once.maintenance().deleteDeadLetter(r.queue(), r.key(), r.deadAt());
      done += ok ? 1 : 0;
    }
    int missed = reviewed.size() - done;
    Html h = new Html().raw("<h1>Done</h1><p class=\"done\">");
    h.text((requeue ? "Requeued " : "Deleted ") + done + " of the " + reviewed.size());
    h.text(" dead letters reviewed");
    if (missed > 0) {
      h.text(
          "; "
              + missed
              + (requeue
                  ? " were already gone (deleted, requeued or dead-lettered again since) or their"
                      + " key is in use in the queue again"
                  : " were already gone (deleted, requeued or dead-lettered again since)"));
    }
    h.raw(". Dead letters that arrived after the review were not touched.</p>");
    return h.link(v.base(), "/dead-letters", "Back to the dead letters").toString();
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

  private static String review(
      View v, String queue, String error, String action, int max, List<DeadLetterSummary> chosen) {
    Html h = new Html().raw("<h1>Confirm</h1><p class=\"confirm\">This will ").text(action);
    h.raw(" ").text(chosen.size()).raw(" dead letters (newest first");
    h.text(queue.isEmpty() ? "" : ", queue " + queue);
    h.text(error.isEmpty() ? "" : ", error containing " + error).raw(", at most ").text(max);
    h.raw("): the ones listed here, and no other. Dead letters that arrive after this page, or");
    h.raw(" that are dead-lettered again, are left alone.</p><ol class=\"reviewed\">");
    List<Reviewed> reviewed = new ArrayList<>();
    for (DeadLetterSummary d : chosen) {
      h.raw("<li>").text(d.queue() + " / " + d.key()).raw("</li>");
      reviewed.add(new Reviewed(d.queue(), d.key(), d.deadAt()));
    }
    h.raw("</ol>");
    if (chosen.isEmpty()) {
      return h.link(v.base(), "/dead-letters", "Back to the dead letters").toString();
    }
    Pages.form(h, v, "/dead-letters/bulk");
    h.hidden("action", action).hidden("reviewed", encode(reviewed)).hidden("confirm", "yes");
    h.raw("<button>Yes, ").text(action).raw(" these ").text(chosen.size()).raw("</button></form>");
    return h.link(v.base(), "/dead-letters", "Cancel").toString();
  }

  /**
   * Writes the reviewed set for the confirmation form: per dead letter its queue and key in
   * unpadded URL-safe Base64 and its instant in epoch milliseconds (the stores keep milliseconds),
   * {@code .}-separated, the dead letters {@code ,}-separated. Every character is safe in a form.
   */
  static String encode(List<Reviewed> reviewed) {
    StringBuilder b = new StringBuilder();
    Base64.Encoder e = Base64.getUrlEncoder().withoutPadding();
    for (Reviewed r : reviewed) {
      b.append(b.length() == 0 ? "" : ",");
      b.append(e.encodeToString(r.queue().getBytes(StandardCharsets.UTF_8))).append('.');
      b.append(e.encodeToString(r.key().getBytes(StandardCharsets.UTF_8))).append('.');
      b.append(r.deadAt().toEpochMilli());
    }
    return b.toString();
  }

  /** Reads what {@link #encode} wrote; anything else is refused before anything is written. */
  static List<Reviewed> decode(String field) {
    if (field.isEmpty()) {
      throw new IllegalArgumentException("the confirmation carries no reviewed dead letters");
    }
    String[] entries = field.split(",", -1);
    if (entries.length > MAX_BULK) {
      throw new IllegalArgumentException(
          "a confirmation carries at most " + MAX_BULK + " dead letters: " + entries.length);
    }
    List<Reviewed> out = new ArrayList<>();
    Base64.Decoder d = Base64.getUrlDecoder();
    for (String entry : entries) {
      String[] parts = entry.split("\\.", -1);
      try {
        if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty()) {
          throw new IllegalArgumentException("not queue.key.millis");
        }
        out.add(
            new Reviewed(
                new String(d.decode(parts[0]), StandardCharsets.UTF_8),
                new String(d.decode(parts[1]), StandardCharsets.UTF_8),
                Instant.ofEpochMilli(Long.parseLong(parts[2]))));
      } catch (IllegalArgumentException | java.time.DateTimeException e) {
        throw new IllegalArgumentException(
            "reviewed is not the list a review page wrote: " + e.getMessage(), e);
      }
    }
    return out;
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
