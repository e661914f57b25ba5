package dev.onceonly.testing;

import dev.onceonly.OnceOnly;
import java.io.PrintStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;

/**
 * The main class of a {@link FaultRun}'s child JVMs. Arguments: the target's class name, the SQLite
 * file, the point to stop at (0: none) and the keys, comma-separated. It opens the store on a
 * connection whose statements and commits are progress points, runs the target for each key and
 * prints one line per event on stdout: {@code READY}, {@code ANSWERED key}, {@code FAILED key
 * error}, {@code KILLPOINT n what key} (then waits to be killed) and {@code POINTS n} at the end.
 */
final class FaultChild {
  private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
  private static int points;
  private static int killAt;
  private static boolean armed;
  private static String currentKey = "-";

  private FaultChild() {}

  public static void main(String[] args) throws Exception {
    FaultTarget target =
        (FaultTarget) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    killAt = Integer.parseInt(args[2]);
    Connection raw = DriverManager.getConnection("jdbc:sqlite:" + args[1]);
    try (Statement s = raw.createStatement()) {
      s.execute("PRAGMA busy_timeout = 10000");
      s.execute("PRAGMA journal_mode = WAL");
      s.execute("PRAGMA synchronous = FULL");
    }
    FaultPoints.install(FaultChild::point);
    try (OnceOnly once = OnceOnly.builder().connection(watched(raw)).build()) {
      target.prepare(once);
      OUT.println("READY");
      armed = true;
      for (String key : args[3].isEmpty() ? new String[0] : args[3].split(",")) {
        currentKey = key;
        try {
          target.run(once, key);
          OUT.println("ANSWERED " + key);
        } catch (Exception e) {
          OUT.println("FAILED " + key + " " + oneLine(e));
        }
      }
      armed = false;
    }
    raw.close();
    OUT.println("POINTS " + points);
  }

  private static String oneLine(Exception e) {
    return (e.getClass().getName() + ": " + e.getMessage()).replaceAll("\\s+", " ");
  }

  /** Counts a point; at the chosen one, says so and waits for the parent's SIGKILL. */
  private static synchronized void point(String what) {
    if (!armed) {
      return;
    }
    points++;
    if (points == killAt) {
      OUT.println("KILLPOINT " + points + " " + currentKey + " " + what);
      OUT.flush();
      try {
        new CountDownLatch(1).await(); // the parent kills this process now
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        Runtime.getRuntime().halt(137);
      }
    }
  }

  private static Connection watched(Connection raw) {
    return (Connection)
        Proxy.newProxyInstance(
            FaultChild.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            new Watch(raw, true, null));
  }

  /** Makes progress points of a connection's commits and its statements' executions. */
  private static final class Watch implements InvocationHandler {
    private final Object target;
    private final boolean connection;
    private final String sql;

    Watch(Object target, boolean connection, String sql) {
      this.target = target;
      this.connection = connection;
      this.sql = sql;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      String name = m.getName();
      boolean step = connection ? name.equals("commit") : name.startsWith("execute");
      String what = connection ? "commit" : describe(args);
      if (step) {
        point("before " + what);
      }
      Object result;
      try {
        result = m.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      if (step) {
        point("after " + what);
      }
      if (connection && result instanceof Statement s && m.getReturnType().isInterface()) {
        return Proxy.newProxyInstance(
            FaultChild.class.getClassLoader(),
            new Class<?>[] {m.getReturnType()},
            new Watch(s, false, args != null && args.length > 0 ? sqlOf(args) : null));
      }
      return result;
    }

    private static String sqlOf(Object[] args) {
      return args[0] instanceof String s ? s : null;
    }

    private String describe(Object[] args) {
      String text = args != null && args.length > 0 ? sqlOf(args) : null;
      if (text == null) {
        text = sql;
      }
      if (text == null) {
        return "statement";
      }
      String[] words = text.strip().split("\\s+", 4);
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < Math.min(3, words.length); i++) {
        b.append(i == 0 ? "" : " ").append(words[i]);
      }
      return b.toString();
    }
  }
}
