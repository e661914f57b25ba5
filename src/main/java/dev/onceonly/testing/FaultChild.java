package dev.onceonly.testing;

import dev.onceonly.OnceOnly;
import java.io.PrintStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The main class of a {@link FaultRun}'s child JVMs. Arguments: the target's class name, the SQLite
 * file, where to stop ({@code 0}: nowhere; {@code n}: the n-th point; {@code n@class}: the n-th
 * point of a class, see {@link #classOf}) and the keys, comma-separated. It opens the store on a
 * connection whose statements and commits are points ({@code store: ...}), hands the target a data
 * source whose connections' statements and commits are points too ({@code application: ...}), runs
 * the target for each key and prints one line per event on stdout: {@code READY}, {@code SEEN
 * class} the first time a point of a class is reached, {@code ANSWERED key}, {@code FAILED key
 * error}, {@code KILLPOINT n key name} (then waits to be killed) and {@code POINTS n} at the end.
 */
final class FaultChild {
  private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
  private static final Map<String, Integer> REACHED = new HashMap<>();
  private static int points;
  private static int killAt;
  private static String killName;
  private static boolean armed;
  private static String currentKey = "-";

  private FaultChild() {}

  public static void main(String[] args) throws Exception {
    FaultTarget target =
        (FaultTarget) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    String[] stop = args[2].split("@", 2);
    killAt = Integer.parseInt(stop[0]);
    killName = stop.length > 1 ? stop[1] : null;
    DataSource files = dataSource(args[1]);
    Connection raw = files.getConnection();
    FaultPoints.install(what -> point("point: " + what));
    try (OnceOnly once = OnceOnly.builder().connection(watched(raw, "store")).build()) {
      target.prepare(once, watched(files));
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

  /** Connections on the file as the store opens its own: WAL, full sync, a wait for the lock. */
  private static DataSource dataSource(String file) {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(10_000);
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    SQLiteDataSource ds = new SQLiteDataSource(config);
    ds.setUrl("jdbc:sqlite:" + file);
    return ds;
  }

  private static String oneLine(Exception e) {
    return (e.getClass().getName() + ": " + e.getMessage()).replaceAll("\\s+", " ");
  }

  /**
   * Returns the class of a point: where ({@code store}, {@code application}), before or after, and
   * a commit or another statement, such as {@code application: after commit}; a point the
   * application named is a class of its own.
   */
  static String classOf(String name) {
    int colon = name.indexOf(": ");
    String side = name.substring(0, colon);
    if (side.equals("point")) {
      return name;
    }
    String[] words = name.substring(colon + 2).split(" ", 3);
    String what = words.length > 1 ? words[1].toUpperCase(java.util.Locale.ROOT) : "";
    boolean commit = what.equals("COMMIT") || what.equals("END");
    return side + ": " + words[0] + (commit ? " commit" : " statement");
  }

  /** Counts a point; at the chosen one, says so and waits for the parent's SIGKILL. */
  private static synchronized void point(String name) {
    if (!armed) {
      return;
    }
    points++;
    String kind = classOf(name);
    int times = REACHED.merge(kind, 1, Integer::sum);
    if (times == 1) {
      OUT.println("SEEN " + kind);
    }
    boolean stop = killName == null ? points == killAt : killName.equals(kind) && times == killAt;
    if (stop) {
      OUT.println("KILLPOINT " + points + " " + currentKey + " " + name);
      OUT.flush();
      try {
        new CountDownLatch(1).await(); // the parent kills this process now
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        Runtime.getRuntime().halt(137);
      }
    }
  }

  /** The application's data source: each connection it gives is watched. */
  private static DataSource watched(DataSource files) {
    return (DataSource)
        Proxy.newProxyInstance(
            FaultChild.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, m, args) -> {
              Object result = Watch.call(files, m, args);
              return result instanceof Connection c ? watched(c, "application") : result;
            });
  }

  private static Connection watched(Connection raw, String side) {
    return (Connection)
        Proxy.newProxyInstance(
            FaultChild.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            new Watch(raw, new Transaction(side), null));
  }

  /**
   * What one connection's open transaction wrote first, so that its commit is named by it ({@code
   * after COMMIT of INSERT INTO charges}): the commit that makes an effect durable is then a point
   * of its own, apart from the receipt's commit.
   */
  private static final class Transaction {
    final String side;
    boolean open;
    String firstWrite;

    Transaction(String side) {
      this.side = side;
    }

    /** Names a statement or commit: a commit by the transaction's first write. */
    String name(String what, boolean connectionEnd) {
      String upper = what.toUpperCase(java.util.Locale.ROOT);
      boolean ends = connectionEnd || upper.startsWith("COMMIT") || upper.startsWith("END");
      return ends && firstWrite != null ? what + " of " + firstWrite : what;
    }

    /** Follows the transaction's state after a statement or commit. */
    void after(String what, boolean connectionEnd) {
      String upper = what.toUpperCase(java.util.Locale.ROOT);
      if (connectionEnd
          || upper.startsWith("COMMIT")
          || upper.startsWith("END")
          || upper.startsWith("ROLLBACK")) {
        firstWrite = null;
        open = false;
      } else if (upper.startsWith("BEGIN")) {
        open = true;
        firstWrite = null;
      } else if (open && firstWrite == null && isWrite(upper)) {
        firstWrite = what;
      }
    }

    private static boolean isWrite(String upper) {
      return upper.startsWith("INSERT")
          || upper.startsWith("UPDATE")
          || upper.startsWith("DELETE")
          || upper.startsWith("REPLACE");
    }
  }

  /** Makes points of a connection's commits and its statements' executions. */
  private static final class Watch implements InvocationHandler {
    private final Object target;
    private final Transaction tx;
    private final String sql;

    /** A connection's watch when {@code sql} is null and the target a connection. */
    Watch(Object target, Transaction tx, String sql) {
      this.target = target;
      this.tx = tx;
      this.sql = sql;
    }

    static Object call(Object target, Method m, Object[] args) throws Throwable {
      try {
        return m.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      String name = m.getName();
      boolean connection = target instanceof Connection;
      if (connection && name.equals("setAutoCommit") && args[0] instanceof Boolean on) {
        tx.open = !on;
        tx.firstWrite = on ? null : tx.firstWrite;
      }
      boolean end = connection && (name.equals("commit") || name.equals("rollback"));
      boolean step = connection ? name.equals("commit") : name.startsWith("execute");
      String what = connection ? name.toUpperCase(java.util.Locale.ROOT) : describe(args);
      String point = step ? tx.name(what, end) : null;
      if (step) {
        point(tx.side + ": before " + point);
      }
      Object result = call(target, m, args);
      if (step) {
        point(tx.side + ": after " + point);
      }
      if (step || end) {
        tx.after(what, end);
      }
      if (connection && result instanceof Statement s && m.getReturnType().isInterface()) {
        return Proxy.newProxyInstance(
            FaultChild.class.getClassLoader(),
            new Class<?>[] {m.getReturnType()},
            new Watch(s, tx, args != null && args.length > 0 ? sqlOf(args) : null));
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
