package dev.onceonly.internal.db;

import java.lang.invoke.MethodHandles;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps the library's own prepared statements on one long-lived connection, so that a statement is
 * compiled once instead of at every step (sqlite-jdbc compiles on every {@code prepareStatement}).
 *
 * <p>Only SQL registered with {@link #register} (the library's statements, which bind every
 * parameter on every use) is cached; anything else, such as an effect's own statements, is prepared
 * and closed as usual. Closing a cached statement only closes its result set: it keeps its bindings
 * (clearing them costs more than the statement itself in sqlite-jdbc), which is safe because every
 * use binds every parameter. At most {@code size} statements are kept, least recently used first
 * out. Closing the connection closes them all. A statement whose execution failed is prepared anew
 * on its next use: sqlite-jdbc finalizes a statement that fails with anything but busy, locked or a
 * constraint (a full disk, a read-only file, an I/O error), and reusing it would fail forever after
 * the fault is gone. Not thread-safe, like the connection it wraps: one thread at a time. A plain
 * delegating class: every other call costs one virtual dispatch, not a reflective invocation.
 */
public final class StatementCache extends DelegatingConnection {
  private static final Set<String> REGISTERED = ConcurrentHashMap.newKeySet();

  static {
    register(
        "BEGIN IMMEDIATE",
        "COMMIT",
        "ROLLBACK",
        "SAVEPOINT onceonly_step",
        "RELEASE SAVEPOINT onceonly_step",
        "ROLLBACK TO SAVEPOINT onceonly_step",
        "SAVEPOINT onceonly_group",
        "RELEASE SAVEPOINT onceonly_group",
        "ROLLBACK TO SAVEPOINT onceonly_group");
  }

  /** Marks SQL text as the library's own, to be cached. */
  static void register(String... sql) {
    REGISTERED.addAll(Arrays.asList(sql));
  }

  /**
   * Registers every {@code String} field of a statements holder (built once per prefix).
   *
   * @param holder the statements holder
   * @param lookup a lookup made in the holder's class ({@code MethodHandles.lookup()}), which may
   *     read its fields, package-private in another package
   */
  public static void registerFields(Object holder, MethodHandles.Lookup lookup) {
    for (Field f : holder.getClass().getDeclaredFields()) {
      if (f.getType() == String.class && !Modifier.isStatic(f.getModifiers())) {
        try {
          register((String) lookup.unreflectVarHandle(f).get(holder));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("cannot read " + f, e);
        }
      }
    }
  }

  private final Map<String, PreparedStatement> cache;

  private StatementCache(Connection target, int size) {
    super(target);
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
    return new StatementCache(connection, size);
  }

  @Override
  public PreparedStatement prepareStatement(String sql) throws SQLException {
    return REGISTERED.contains(sql) ? prepare(sql) : target.prepareStatement(sql);
  }

  @Override
  public void close() throws SQLException {
    cache.values().forEach(StatementCache::closeQuietly);
    cache.clear();
    target.close();
  }

  private PreparedStatement prepare(String sql) throws SQLException {
    PreparedStatement ps = cache.get(sql);
    if (ps != null && ((Reusable) Proxy.getInvocationHandler(ps)).failed) {
      closeQuietly(ps);
      cache.remove(sql);
      ps = null;
    }
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
    private boolean failed;

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
        failed = true;
        throw e.getCause();
      }
    }
  }
}
