package dev.onceonly.dashboard;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * Draws the throughput of the last hour as server-side SVG (attributes only: no style, no script,
 * so the page's Content-Security-Policy holds), followed by the same figures as a table for screen
 * readers and for copying. A minute without data is drawn as a grey band and written "no data",
 * never as zero.
 */
final class Chart {
  static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);

  private static final int WIDTH = 600;
  private static final int HEIGHT = 160;
  private static final String[] NAMES = {"sent", "handled", "dead-lettered"};
  private static final String[] COLOURS = {"#1f6feb", "#1a7f37", "#d1242f"};

  /**
   * One minute's figures; a null figure is a minute without data for that series.
   *
   * @param start the minute's start
   * @param sent messages sent, or null when not known
   * @param handled messages handled, or null when not known
   * @param deadLettered messages dead-lettered, or null when not known
   */
  record Minute(Instant start, Long sent, Long handled, Long deadLettered) {
    Long[] figures() {
      return new Long[] {sent, handled, deadLettered};
    }
  }

  private Chart() {}

  /** Whether any minute holds a known figure above zero. */
  static boolean hasHistory(List<Minute> minutes) {
    for (Minute m : minutes) {
      for (Long f : m.figures()) {
        if (f != null && f > 0) {
          return true;
        }
      }
    }
    return false;
  }

  /** Appends the chart and its table. */
  static void throughput(Html h, List<Minute> minutes) {
    long max = 1;
    for (Minute m : minutes) {
      for (Long f : m.figures()) {
        max = Math.max(max, f == null ? 0 : f);
      }
    }
    double slot = (double) WIDTH / minutes.size();
    double bar = slot / (NAMES.length + 1);
    h.raw("<svg class=\"chart\" id=\"throughput-chart\" viewBox=\"0 0 600 160\" role=\"img\"");
    h.raw(" aria-label=\"messages per minute over the last hour; the table below has the figures");
    h.raw("\">");
    for (int i = 0; i < minutes.size(); i++) {
      Minute m = minutes.get(i);
      String label = MINUTE.format(m.start());
      for (int s = 0; s < NAMES.length; s++) {
        Long f = m.figures()[s];
        double x = i * slot + s * bar;
        if (f == null) {
          rect(h, x, 0, bar, HEIGHT, "#d0d7de").text(label + " " + NAMES[s] + ": no data");
        } else {
          double height = (HEIGHT - 5) * (double) f / max;
          rect(h, x, HEIGHT - height, bar, height, COLOURS[s]);
          h.text(label + " " + NAMES[s] + ": " + Html.count(f));
        }
        h.raw("</title></rect>");
      }
    }
    h.raw("</svg><p class=\"legend\">blue: sent; green: handled; red: dead-lettered; grey: no");
    h.raw(" data. Per minute (UTC) from ").text(MINUTE.format(minutes.get(0).start()));
    h.raw(", top of the chart = ").text(Html.count(max)).raw(" messages.</p>");
    h.raw("<details><summary>The figures as a table</summary><table id=\"throughput\">");
    h.raw("<tr><th>minute (UTC)</th><th>sent</th><th>handled</th><th>dead-lettered</th></tr>");
    for (Minute m : minutes) {
      h.raw("<tr>").td(MINUTE.format(m.start()));
      for (Long f : m.figures()) {
        h.raw("<td class=\"n\">").text(f == null ? "no data" : Html.count(f)).raw("</td>");
      }
      h.raw("</tr>");
    }
    h.raw("</table></details>");
  }

  /** Opens a rectangle with its title element; the caller writes the title and closes both. */
  private static Html rect(Html h, double x, double y, double w, double height, String fill) {
    return h.raw(
        String.format(
            Locale.ROOT,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
            x,
            y,
            w,
            height,
            fill));
  }
}
