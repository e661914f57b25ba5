package dev.onceonly.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A line chart in SVG, written by hand: a plotting library would be one more test-scope dependency
 * (and its transitive ones) for two charts of a few points each, and the chart is a few lines of
 * text. The x axis is linear from 0 to the largest x, the y axis from 0 to the largest y; each
 * series is a polyline with a dot and its value at each point.
 */
final class GrowthSvg {
  private GrowthSvg() {}

  /** One point of a series. */
  record Point(double x, double y) {}

  private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
  private static final int W = 720;
  private static final int H = 420;
  private static final int LEFT = 80;
  private static final int RIGHT = 200;
  private static final int TOP = 40;
  private static final int BOTTOM = 60;

  /** Writes the chart of {@code series} (name to points) to {@code file}. */
  static void write(
      Path file, String title, String xLabel, String yLabel, Map<String, List<Point>> series)
      throws IOException {
    double maxX = 0;
    double maxY = 0;
    for (List<Point> s : series.values()) {
      for (Point p : s) {
        maxX = Math.max(maxX, p.x());
        maxY = Math.max(maxY, p.y());
      }
    }
    maxX = maxX == 0 ? 1 : maxX;
    maxY = maxY == 0 ? 1 : maxY * 1.1;
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " font-family=\"sans-serif\" font-size=\"12\">%n"
                + "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n"
                + "<text x=\"%d\" y=\"22\" font-size=\"15\">%s</text>%n",
            W,
            H,
            LEFT,
            escape(title)));
    for (int i = 0; i <= 5; i++) {
      double y = TOP + ph - ph * i / 5.0;
      double x = LEFT + pw * i / 5.0;
      b.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
              LEFT,
              y,
              LEFT + pw,
              y,
              LEFT - 6,
              y + 4,
              number(maxY * i / 5),
              x,
              TOP + ph + 18,
              number(maxX * i / 5)));
    }
    b.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n"
                + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n"
                + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n"
                + "<text x=\"16\" y=\"%d\" text-anchor=\"middle\""
                + " transform=\"rotate(-90 16 %d)\">%s</text>%n",
            LEFT,
            TOP + ph,
            LEFT + pw,
            TOP + ph,
            LEFT,
            TOP,
            LEFT,
            TOP + ph,
            LEFT + pw / 2,
            H - 16,
            escape(xLabel),
            TOP + ph / 2,
            TOP + ph / 2,
            escape(yLabel)));
    int n = 0;
    for (Map.Entry<String, List<Point>> s : series.entrySet()) {
      String color = COLORS[n % COLORS.length];
      StringBuilder points = new StringBuilder();
      for (Point p : s.getValue()) {
        double x = LEFT + pw * p.x() / maxX;
        double y = TOP + ph - ph * p.y() / maxY;
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        b.append(
            String.format(
                Locale.ROOT,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n"
                    + "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\">%s</text>%n",
                x,
                y,
                color,
                x + 4,
                y - 5,
                color,
                number(p.y())));
      }
      b.append(
          String.format(
              Locale.ROOT,
              "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n"
                  + "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n"
                  + "<text x=\"%d\" y=\"%d\">%s</text>%n",
              color,
              points.toString().trim(),
              W - RIGHT + 14,
              TOP + 20 * n,
              color,
              W - RIGHT + 32,
              TOP + 20 * n + 11,
              escape(s.getKey())));
      n++;
    }
    b.append("</svg>\n");
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, b.toString());
  }

  private static String number(double v) {
    if (v >= 1_000_000) {
      return String.format(Locale.ROOT, "%.1fM", v / 1e6);
    }
    if (v >= 10_000) {
      return String.format(Locale.ROOT, "%.0fk", v / 1e3);
    }
    if (v < 10 && v != Math.rint(v)) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%,.0f", v);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
