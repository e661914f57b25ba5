package dev.onceonly.testing;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The main class of a {@link FaultRun}'s child JVMs. Arguments: the target's class name, the SQLite
 * file or a JDBC URL (whose connection properties then come on stdin, in {@link Properties} form,
 * kept out of the process list), where to stop ({@code 0}: nowhere; {@code n}: kill at the n-th
 * point; {@code n@class}: the n-th point of a class, see {@link #classOf}; {@code n!FAULT}: the
 * n-th point where that {@link Fault} applies), the keys, comma-separated, and the faults of the
 * run, comma-separated. It opens the store on connections whose statements and commits are points
 * ({@code store: ...}), hands the target a data source whose connections' statements and commits
 * are points too ({@code application: ...}), runs the target for each key and prints one line per
 * event on stdout: {@code READY}, {@code SEEN class} the first time a point of a class is reached,
 * {@code ANSWERED key}, {@code FAILED key error}, {@code KILLPOINT n key name} (then waits to be
 * killed), {@code FAULT n key name} (a fault given, then goes on: a key whose call failed after it
 * is called again, up to three times), and at the end {@code POINTS n} and {@code FAULTPOINTS FAULT
 * n} for each fault.
 *
 * <p>In a run with a failover ({@link FaultRun#failover}; a sixth argument, {@value #FAILOVER}) it
 * also prints {@code COMMITPOINT name} the first time it reaches a commit inside a transaction, and
 * {@code OPENPOINTS n} at the end (its points inside a transaction); a stop {@code n^name} (the
 * n-th time the point of that name comes) or {@code n^} (the n-th point inside a transaction)
 * prints {@code FAILOVER n key name} there and waits for a line on stdin, the cluster failing over
 * meanwhile. Every call that fails is then made again, with a growing pause, for up to {@link
 * #RIDE}, as is opening the store. If the statement or commit it waited before then succeeds on the
 * same connection, the cluster did not fail over: it prints {@code UNBROKEN name}.
 */
final class FaultChild {
  private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
  private static final Map<String, Integer> REACHED = new HashMap<>();
  private static final Map<Fault, Integer> FAULT_POINTS = new EnumMap<>(Fault.class);

  /** How many times a key whose call failed after a fault is called again in the same child. */
  private static final int RETRIES = 3;

  /** The argument that says the run fails the cluster over. */
  static final String FAILOVER = "failover";

  /** The line that ends the connection properties on stdin. */
  static final String END_OF_PROPERTIES = "#end of properties\n";

  /** How long a run with a failover retries a call, or opening the store, before it gives up. */
  static final Duration RIDE = Duration.ofSeconds(90);

  private static final BufferedReader STDIN =
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
  private static boolean failoverRun;
  private static int failoverAt;
  private static String failoverName;
  private static int failoverSeen;
  private static int openPoints;

  /** The transaction a failover stop waited in, until its next statement or commit is sent. */
  private static volatile Object waitedIn;

  /** The transaction of the point being counted, for {@link #waitedIn}. */
  private static Object counting;

  private static final Set<String> COMMITS = new HashSet<>();

  private static Set<Fault> faults = EnumSet.of(Fault.KILL);
  private static Relay relay;
  private static int points;
  private static int killAt;
  private static String killName;
  private static Fault stopFault = Fault.KILL;
  private static boolean armed;
  private static boolean faulted;
  private static String faultKey;
  private static String currentKey = "-";

  private FaultChild() {}

  public static void main(String[] args) throws Exception {
    FaultTarget target =
        (FaultTarget) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    parseStop(args[2]);
    if (args.length > 4) {
      faults = EnumSet.noneOf(Fault.class);
      for (String f : args[4].split(",")) {
        faults.add(Fault.valueOf(f));
      }
    }
    failoverRun = args.length > 5 && args[5].equals(FAILOVER);
    String where = args[1];
    boolean server = where.startsWith("jdbc:");
    DataSource files = server ? serverDataSource(where) : dataSource(where);
    Connection raw = server ? null : files.getConnection();
    FaultPoints.install(what -> point("point: " + what, Set.of()));
    OnceOnlyBuilder builder = OnceOnly.builder();
    if (server) {
      builder.dataSource(watched(files, "store"));
    } else {
      builder.connection(watched(raw, "store"));
    }
    try (OnceOnly once = failoverRun ? ride(builder::build) : builder.build()) {
      DataSource application = watched(files, "application");
      if (failoverRun) {
        ride(
            () -> {
              target.prepare(once, application);
              return once;
            });
      } else {
        target.prepare(once, application);
      }
      OUT.println("READY");
      armed = true;
      for (String key : args[3].isEmpty() ? new String[0] : args[3].split(",")) {
        currentKey = key;
        run(target, once, key);
      }
      armed = false;
    }
    if (raw != null) {
      raw.close();
    }
    OUT.println("POINTS " + points);
    if (failoverRun) {
      OUT.println("OPENPOINTS " + openPoints);
    }
    FAULT_POINTS.forEach((f, n) -> OUT.println("FAULTPOINTS " + f + " " + n));
  }

  private static void parseStop(String stop) {
    int caret = stop.indexOf('^');
    if (caret >= 0) {
      failoverAt = Integer.parseInt(stop.substring(0, caret));
      failoverName = caret + 1 < stop.length() ? stop.substring(caret + 1) : null;
      return; // killAt stays 0: no kill
    }
    int bang = stop.indexOf('!');
    if (bang >= 0) {
      stopFault = Fault.valueOf(stop.substring(bang + 1));
      killAt = Integer.parseInt(stop.substring(0, bang));
      return;
    }
    String[] parts = stop.split("@", 2);
    killAt = Integer.parseInt(parts[0]);
    killName = parts.length > 1 ? parts[1] : null;
  }

  /** Runs the target for a key; after a fault in its call, calls it again as a client retries. */
  private static void run(FaultTarget target, OnceOnly once, String key) {
    if (failoverRun) {
      try {
        ride(
            () -> {
              target.run(once, key);
              return key;
            });
        OUT.println("ANSWERED " + key);
      } catch (Exception e) {
        OUT.println("FAILED " + key + " " + oneLine(e));
      }
      return;
    }
    for (int attempt = 0; ; attempt++) {
      try {
        target.run(once, key);
        OUT.println("ANSWERED " + key);
        return;
      } catch (Exception e) {
        if (!key.equals(faultKey) || attempt == RETRIES) {
          OUT.println("FAILED " + key + " " + oneLine(e));
          return;
        }
        OUT.println("RETRY " + key + " " + oneLine(e));
      }
    }
  }

  /**
   * Calls {@code call} until it returns, as an application rides a failover through: after a
   * failure, again after a pause that doubles from 100 ms to 2 s, for up to {@link #RIDE}; then the
   * last failure is thrown.
   */
  private static <T> T ride(Callable<T> call) throws Exception {
    long deadline = System.nanoTime() + RIDE.toNanos();
    for (long pause = 100; ; pause = Math.min(2_000, pause * 2)) {
      try {
        return call.call();
      } catch (Exception e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        OUT.println("RETRY " + currentKey + " " + oneLine(e));
        pause(pause);
      }
    }
  }

  /** Waits {@code millis}: a retry's pause, as an application backs off, not a wait for a state. */
  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
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

  /**
   * A new connection to the server per call, with the properties read from stdin; through a relay
   * of this process when a fault other than a kill may come.
   */
  private static DataSource serverDataSource(String url) throws IOException {
    Properties properties = new Properties();
    StringBuilder text = new StringBuilder();
    for (String line = STDIN.readLine();
        line != null && !END_OF_PROPERTIES.equals(line + "\n");
        line = STDIN.readLine()) {
      text.append(line).append('\n');
    }
    properties.load(new StringReader(text.toString()));
    String through = url;
    if (faults.stream().anyMatch(f -> f != Fault.KILL)) {
      Server s = Server.parse(url);
      relay = Relay.to(s.host(), s.port());
      through = s.through(relay.port());
    }
    String connectTo = through;
    return (DataSource)
        Proxy.newProxyInstance(
            FaultChild.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, m, args) ->
                switch (m.getName()) {
                  case "getConnection" -> DriverManager.getConnection(connectTo, properties);
                  case "getLoginTimeout" -> 0;
                  case "isWrapperFor", "equals" -> false;
                  case "hashCode" -> System.identityHashCode(proxy);
                  case "toString" -> "the fault run's connections";
                  default -> null;
                });
  }

  /**
   * A JDBC URL of one server, {@code jdbc:postgresql://host:port/...} or {@code
   * jdbc:mariadb://host:port/...}, taken apart so that its connections can go through a relay.
   */
  record Server(String scheme, String host, int port, String rest) {
    private static final Pattern URL =
        Pattern.compile("(jdbc:[a-z0-9]+://)([^/:?,\\[\\]]+)(?::(\\d+))?([/?].*)?");

    /**
     * Parses a URL.
     *
     * @throws IllegalArgumentException if it names no host or more than one
     */
    static Server parse(String url) {
      Matcher m = URL.matcher(url);
      if (!m.matches()) {
        throw new IllegalArgumentException(
            "faults other than KILL need a JDBC URL of one server, such as"
                + " jdbc:postgresql://host:5432/db or jdbc:mariadb://host:3306/db");
      }
      int port =
          m.group(3) != null
              ? Integer.parseInt(m.group(3))
              : m.group(1).startsWith("jdbc:postgresql") ? 5432 : 3306;
      return new Server(m.group(1), m.group(2), port, m.group(4) == null ? "" : m.group(4));
    }

    /** {@return the URL with this server replaced by a relay on a loopback port} */
    String through(int relayPort) {
      return scheme + "127.0.0.1:" + relayPort + rest;
    }
  }

  private static String oneLine(Exception e) {
    return (e.getClass().getName() + ": " + e.getMessage()).replaceAll("\\s+", " ");
  }

  /**
   * Returns the class of a point: the fault, where ({@code store}, {@code application}), before or
   * after, and a commit or another statement, such as {@code application: after commit} or {@code
   * lost commit answer: store: before commit}; a point the application named is a class of its own.
   */
  static String classOf(String name) {
    Fault fault = Fault.of(name);
    String point = name.substring(fault.prefix().length());
    int colon = point.indexOf(": ");
    String side = point.substring(0, colon);
    if (side.equals("point")) {
      return point;
    }
    String[] words = point.substring(colon + 2).split(" ", 3);
    String what = words.length > 1 ? words[1].toUpperCase(java.util.Locale.ROOT) : "";
    boolean commit = what.equals("COMMIT") || what.equals("END");
    return fault.prefix() + side + ": " + words[0] + (commit ? " commit" : " statement");
  }

  /**
   * Counts a point of each fault of the run that applies here (a kill at every point, the others
   * where {@code applies} says); at the chosen one, gives the fault: says so and waits for the
   * parent's SIGKILL, or breaks the connections and goes on.
   */
  private static synchronized void point(String name, Set<Fault> applies) {
    if (!armed) {
      return;
    }
    points++;
    if (failoverRun && applies.contains(Fault.CONNECTION_RESET)) {
      failoverPoint(name, applies.contains(Fault.LOST_COMMIT_ANSWER));
    }
    for (Fault f : faults) {
      if (f != Fault.KILL && !applies.contains(f)) {
        continue;
      }
      String kind = f.prefix() + classOf(name);
      int times = REACHED.merge(kind, 1, Integer::sum);
      if (times == 1) {
        OUT.println("SEEN " + kind);
      }
      int ofFault = FAULT_POINTS.merge(f, 1, Integer::sum);
      boolean stop =
          killName != null
              ? killName.equals(kind) && times == killAt
              : f == stopFault && (f == Fault.KILL ? points : ofFault) == killAt;
      if (stop && !faulted) {
        give(f, f.prefix() + name);
      }
    }
  }

  /**
   * Counts a point inside a transaction, names a commit the first time, and at the stop the run
   * chose for its failover waits for the parent's line while the cluster fails over.
   */
  private static void failoverPoint(String name, boolean commit) {
    openPoints++;
    if (commit && COMMITS.add(name)) {
      OUT.println("COMMITPOINT " + name);
    }
    if (failoverAt == 0 || faulted) {
      return;
    }
    boolean here =
        failoverName == null
            ? openPoints == failoverAt
            : name.equals(failoverName) && ++failoverSeen == failoverAt;
    if (here) {
      faulted = true;
      faultKey = currentKey;
      waitedIn = counting;
      OUT.println("FAILOVER " + points + " " + currentKey + " " + name);
      try {
        STDIN.readLine(); // the trigger returned; the transaction is still open here
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static void give(Fault f, String name) {
    if (f == Fault.KILL) {
      OUT.println("KILLPOINT " + points + " " + currentKey + " " + name);
      OUT.flush();
      try {
        new CountDownLatch(1).await(); // the parent kills this process now
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        Runtime.getRuntime().halt(137);
      }
    }
    faulted = true;
    faultKey = currentKey;
    OUT.println("FAULT " + points + " " + currentKey + " " + name);
    if (f == Fault.LOST_COMMIT_ANSWER) {
      relay.loseAnswerTo(""); // the next request of this single thread: the commit
    } else {
      relay.cut(); // the open transaction's connection, and every other of this process
      relay.heal();
    }
  }

  /** The application's data source: each connection it gives is watched. */
  private static DataSource watched(DataSource files, String side) {
    return (DataSource)
        Proxy.newProxyInstance(
            FaultChild.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, m, args) -> {
              Object result = Watch.call(files, m, args);
              return result instanceof Connection c ? watched(c, side) : result;
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
    String name(String what, String full, boolean connectionEnd) {
      String upper = full.toUpperCase(java.util.Locale.ROOT);
      boolean ends = connectionEnd || ends(upper);
      return ends && firstWrite != null ? what + " of " + firstWrite : what;
    }

    /** Follows the transaction's state after a statement or commit. */
    void after(String what, boolean connectionEnd) {
      String upper = what.toUpperCase(java.util.Locale.ROOT);
      if (connectionEnd || ends(upper) || upper.startsWith("ROLLBACK")) {
        firstWrite = null;
        open = false;
      } else if (opens(upper)) {
        open = true;
        firstWrite = null;
      } else if (open && firstWrite == null && isWrite(upper)) {
        firstWrite = what;
      }
    }

    /**
     * {@return the faults beyond a kill that apply before {@code what}: a lost answer before a
     * commit (an explicit one, or a write in auto-commit), a reset inside a transaction}
     */
    Set<Fault> before(String what, boolean commit) {
      String upper = what.toUpperCase(java.util.Locale.ROOT);
      boolean ends = commit || ends(upper);
      Set<Fault> applies = EnumSet.noneOf(Fault.class);
      if (ends || (!open && isWrite(upper))) {
        applies.add(Fault.LOST_COMMIT_ANSWER);
      }
      if (open) {
        applies.add(Fault.CONNECTION_RESET);
      }
      return applies;
    }

    /**
     * Whether a statement commits: {@code COMMIT}, {@code END}, or the block MariaDB's dialect
     * commits with ({@code BEGIN NOT ATOMIC COMMIT; SET autocommit = 1; END}).
     */
    private static boolean ends(String upper) {
      return upper.startsWith("COMMIT")
          || upper.startsWith("END")
          || upper.startsWith("BEGIN NOT ATOMIC COMMIT");
    }

    /**
     * Whether a statement opens a transaction: {@code BEGIN}, {@code START TRANSACTION}, or the
     * {@code SET autocommit = 0, …} MariaDB's dialect begins with.
     */
    private static boolean opens(String upper) {
      return (upper.startsWith("BEGIN") && !upper.startsWith("BEGIN NOT ATOMIC"))
          || upper.startsWith("START TRANSACTION")
          || upper.replace(" ", "").startsWith("SETAUTOCOMMIT=0");
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
      String full = connection ? what : text(args);
      String point = step ? tx.name(what, full, end) : null;
      if (step) {
        synchronized (FaultChild.class) {
          counting = tx;
          point(tx.side + ": before " + point, tx.before(full, connection));
        }
      }
      Object result;
      try {
        result = call(target, m, args);
      } catch (Throwable failure) {
        if (step && waitedIn == tx) {
          waitedIn = null; // the failover broke the connection, as it must
        }
        throw failure;
      }
      if (step && waitedIn == tx) {
        waitedIn = null;
        OUT.println("UNBROKEN " + point); // sent and answered on the same connection: no failover
      }
      if (step) {
        point(tx.side + ": after " + point, Set.of());
      }
      if (step || end) {
        tx.after(full, end);
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

    /** The whole text of the statement executed, which the transaction's state follows. */
    private String text(Object[] args) {
      String text = args != null && args.length > 0 ? sqlOf(args) : null;
      if (text == null) {
        text = sql;
      }
      return text == null ? "statement" : text.strip();
    }

    /** The statement's first three words, which name its point. */
    private String describe(Object[] args) {
      String text = text(args);
      String[] words = text.split("\\s+", 4);
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < Math.min(3, words.length); i++) {
        b.append(i == 0 ? "" : " ").append(words[i]);
      }
      return b.toString();
    }
  }
}
