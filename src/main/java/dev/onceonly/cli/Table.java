package dev.onceonly.cli;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Rows with named columns, printed as aligned text or turned into JSON objects. */
final class Table {
  private final List<String> columns;
  private final List<List<Object>> rows = new ArrayList<>();

  Table(String... columns) {
    this.columns = List.of(columns);
  }

  Table add(Object... values) {
    if (values.length != columns.size()) {
      throw new IllegalArgumentException("expected " + columns.size() + " values");
    }
    Object[] copy = values.clone();
    for (int i = 0; i < copy.length; i++) {
      if (copy[i] instanceof Instant || copy[i] instanceof Enum<?>) {
        copy[i] = copy[i].toString(); // JSON without a Jackson time module
      }
    }
    rows.add(Arrays.asList(copy));
    return this;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  int size() {
    return rows.size();
  }

  /** Returns each row as a map from column to value, in column order. */
  List<Map<String, Object>> objects() {
    List<Map<String, Object>> out = new ArrayList<>();
    for (List<Object> row : rows) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (int i = 0; i < columns.size(); i++) {
        m.put(columns.get(i), row.get(i));
      }
      out.add(m);
    }
    return out;
  }

  /** Prints the header and the rows, each column as wide as its widest cell. */
  void print(PrintWriter out) {
    int[] widths = new int[columns.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = columns.get(i).length();
      for (List<Object> row : rows) {
        widths[i] = Math.max(widths[i], text(row.get(i)).length());
      }
    }
    line(out, widths, new ArrayList<>(columns));
    for (List<Object> row : rows) {
      line(out, widths, row);
    }
  }

  private static void line(PrintWriter out, int[] widths, List<?> cells) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < widths.length; i++) {
      String cell = text(cells.get(i));
      b.append(cell);
      if (i < widths.length - 1) {
        b.append(" ".repeat(widths[i] - cell.length() + 2));
      }
    }
    out.println(b.toString().stripTrailing());
  }

  private static String text(Object value) {
    return value == null ? "-" : String.valueOf(value);
  }
}
