package dev.onceonly.dashboard;

import dev.onceonly.maintenance.StoreStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The queue depth over time, from the counts the overview read at its own visits: the store keeps
 * no history, so this is the only real one there is, and it starts empty. Kept in memory, at most
 * one sample per {@link #SPACING} and {@link #KEPT} of them.
 */
final class History {
  static final Duration SPACING = Duration.ofSeconds(5);
  static final int KEPT = 720;

  /** One reading: when, messages waiting (due, leased, delayed) and dead letters. */
  record Sample(Instant at, long waiting, long deadLetters) {}

  private final ArrayDeque<Sample> samples = new ArrayDeque<>();

  /** Records the counts of one overview, unless the last sample is too recent. */
  synchronized void record(StoreStatus status) {
    Sample last = samples.peekLast();
    if (last != null && last.at().plus(SPACING).isAfter(status.at())) {
      return;
    }
    long waiting = 0;
    for (StoreStatus.QueueCounts q : status.messages().values()) {
      waiting += q.due() + q.leased() + q.delayed();
    }
    samples.addLast(new Sample(status.at(), waiting, status.deadLetterTotal()));
    while (samples.size() > KEPT) {
      samples.removeFirst();
    }
  }

  /** {@return the samples, oldest first} */
  synchronized List<Sample> samples() {
    return new ArrayList<>(samples);
  }

  /**
   * Draws the samples as an SVG line chart (attributes only, no style or script), or says there is
   * no history yet when fewer than two were taken.
   */
  static void chart(Html html, List<Sample> samples) {
    if (samples.size() < 2) {
      html.raw("<p class=\"nohistory\" id=\"depth-none\">no history yet: the chart draws the");
      html.raw(" counts this page read at its own visits (").text(samples.size());
      html.raw(" so far, at most one per 5 s, kept in this process's memory); the store keeps no");
      html.raw(" history of its depth.</p>");
      return;
    }
    long max = 1;
    for (Sample s : samples) {
      max = Math.max(max, Math.max(s.waiting(), s.deadLetters()));
    }
    long t0 = samples.get(0).at().toEpochMilli();
    long span = Math.max(1, samples.get(samples.size() - 1).at().toEpochMilli() - t0);
    html.raw("<svg class=\"chart\" id=\"depth-chart\" viewBox=\"0 0 600 160\" role=\"img\"");
    html.raw(" aria-label=\"queue depth at this page's visits; the table below has the figures\">");
    html.raw("<polyline fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\" points=\"");
    html.raw(points(samples, t0, span, max, true));
    html.raw("\"/><polyline fill=\"none\" stroke=\"#d1242f\" stroke-width=\"2\" points=\"");
    html.raw(points(samples, t0, span, max, false));
    html.raw("\"/></svg><p class=\"legend\">blue: messages waiting; red: dead letters; ");
    html.text(samples.size()).raw(" samples read at this page's visits, from ");
    html.text(samples.get(0).at()).raw(" to ").text(samples.get(samples.size() - 1).at());
    html.raw(", top of the chart = ").text(Html.count(max)).raw("; between visits, no data.</p>");
    html.raw("<details><summary>The samples as a table</summary><table id=\"depth\"><tr><th>");
    html.raw("at</th><th>messages waiting</th><th>dead letters</th></tr>");
    for (Sample s : samples) {
      html.raw("<tr>").td(s.at()).raw("<td class=\"n\">").text(Html.count(s.waiting()));
      html.raw("</td><td class=\"n\">").text(Html.count(s.deadLetters())).raw("</td></tr>");
    }
    html.raw("</table></details>");
  }

  private static String points(List<Sample> samples, long t0, long span, long max, boolean wait) {
    StringBuilder p = new StringBuilder();
    for (Sample s : samples) {
      long v = wait ? s.waiting() : s.deadLetters();
      double x = 600.0 * (s.at().toEpochMilli() - t0) / span;
      double y = 155 - 150.0 * v / max;
      p.append(String.format(java.util.Locale.ROOT, "%.1f,%.1f ", x, y));
    }
    return p.toString().trim();
  }
}
