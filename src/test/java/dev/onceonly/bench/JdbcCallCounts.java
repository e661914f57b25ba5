package dev.onceonly.bench;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * The calls that reach the JDBC driver through a data source, counted by name: every execution by
 * its SQL text, and the connection calls that may each cost a round trip to the server ({@code
 * commit}, {@code rollback}, {@code setAutoCommit}, {@code setSavepoint}, {@code
 * releaseSavepoint}). Nothing in the library changes: it is built on the counting data source.
 */
final class JdbcCallCounts {
  private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();

  /** {@return a data source whose connections count their calls here} */
  DataSource wrap(DataSource target) {
    return (DataSource)
        Proxy.newProxyInstance(
            JdbcCallCounts.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, m, args) -> {
              Object r = call(target, m, args);
              return r instanceof Connection c ? connection(c) : r;
            });
  }

  private Connection connection(Connection target) {
    return (Connection)
        Proxy.newProxyInstance(
            JdbcCallCounts.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, m, args) -> {
              String name = m.getName();
              switch (name) {
                case "commit", "rollback", "setSavepoint", "releaseSavepoint" -> add(name + "()");
                case "setAutoCommit" -> add("setAutoCommit(" + args[0] + ")");
                default -> {}
              }
              Object r = call(target, m, args);
              if (r instanceof Statement s) {
                String sql = name.startsWith("prepare") ? (String) args[0] : null;
                return statement(s, m.getReturnType(), sql);
              }
              return r;
            });
  }

  private Object statement(Statement target, Class<?> type, String sql) {
    return Proxy.newProxyInstance(
        JdbcCallCounts.class.getClassLoader(),
        new Class<?>[] {type},
        (proxy, m, args) -> {
          if (m.getName().startsWith("execute")) {
            add(sql != null ? sql : args != null && args.length > 0 ? (String) args[0] : "?");
          }
          return call(target, m, args);
        });
  }

  private void add(String what) {
    calls.computeIfAbsent(what, k -> new LongAdder()).increment();
  }

  private static Object call(Object target, java.lang.reflect.Method m, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /** Forgets every count. */
  void reset() {
    calls.clear();
  }

  /** {@return the counts per request over {@code requests}, most frequent first, one a line} */
  String perRequest(long requests) {
    StringBuilder out = new StringBuilder();
    double total = 0;
    for (LongAdder a : calls.values()) {
      total += a.sum();
    }
    out.append(
        String.format(
            Locale.ROOT,
            "  %.2f driver calls a request (each a round trip unless the driver skips it)%n",
            total / Math.max(1, requests)));
    calls.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
        .forEach(
            e -> {
              String sql = e.getKey().replaceAll("\\s+", " ");
              out.append(
                  String.format(
                      Locale.ROOT,
                      "  %6.2f  %s%n",
                      e.getValue().sum() / (double) Math.max(1, requests),
                      sql.length() > 160 ? sql.substring(0, 160) + "..." : sql));
            });
    return out.toString();
  }
}
