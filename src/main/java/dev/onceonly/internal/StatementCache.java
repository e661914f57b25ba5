package dev.onceonly.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Keeps the prepared statements of one long-lived connection, so that a statement is compiled once
 * instead of at every step (sqlite-jdbc compiles on every {@code prepareStatement}).
 *
 * <p>The returned connection hands out the same statement for the same SQL text; closing such a
 * statement only closes its result set and clears its parameters. At most {@code size} statements
 * are kept, least recently used first out. Closing the connection closes them all. Not thread-safe,
 * like the connection it wraps: one thread at a time.
 */
final class StatementCache implements InvocationHandler {
  private final Connection target;
  private final Map<String, PreparedStatement> cache;

  private StatementCache(Connection target, int size) {
    this.target = target;
    this.cache =
        new LinkedHashMap<>(size * 2, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
            if (size() <= size) {
              return false;
            }
            closeQuietly(eldest.getValue());
            return true;
          }
        };
  }

  /** Returns {@code connection} with its statements cached. */
  static Connection wrap(Connection connection, int size) {
    return (Connection)
        Proxy.newProxyInstance(
            StatementCache.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            new StatementCache(connection, size));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    String name = method.getName();
    if (name.equals("prepareStatement") && args != null && args.length == 1) {
      return prepare((String) args[0]);
    }
    if (name.equals("close") && (args == null || args.length == 0)) {
      cache.values().forEach(StatementCache::closeQuietly);
      cache.clear();
    }
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private PreparedStatement prepare(String sql) throws SQLException {
    PreparedStatement ps = cache.get(sql);
    if (ps == null) {
      PreparedStatement real = target.prepareStatement(sql);
      ps =
          (PreparedStatement)
              Proxy.newProxyInstance(
                  StatementCache.class.getClassLoader(),
                  new Class<?>[] {PreparedStatement.class},
                  new Reusable(real));
      cache.put(sql, ps);
    }
    return ps;
  }

  private static void closeQuietly(PreparedStatement ps) {
    try {
      ps.unwrap(PreparedStatement.class).close();
    } catch (SQLException e) {
      // the statement is being discarded
    }
  }

  /** A cached statement: close() resets it for the next use instead of closing it. */
  private static final class Reusable implements InvocationHandler {
    private final PreparedStatement target;
    private ResultSet open;

    Reusable(PreparedStatement target) {
      this.target = target;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      String name = method.getName();
      if (name.equals("close") && (args == null || args.length == 0)) {
        if (open != null && !open.isClosed()) {
          open.close(); // resets the statement, ending its read
        }
        open = null;
        target.clearParameters();
        return null;
      }
      if (name.equals("isClosed")) {
        return false;
      }
      if (name.equals("unwrap") && args != null && args[0] == PreparedStatement.class) {
        return target;
      }
      try {
        Object result = method.invoke(target, args);
        if (result instanceof ResultSet rs) {
          open = rs;
        }
        return result;
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }
}
