package dev.onceonly.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * Runs the application's {@link FaultTarget} in child JVMs on one SQLite file or one database
 * server, kills them with SIGKILL at many points (or, on a server, breaks their connections: see
 * {@link #faults}), on the store's connection and on the application's, calls the target again for
 * every key that got no answer, and counts duplicate and lost effects in the application's own
 * tables.
 *
 * <pre>{@code
 * FaultReport report = FaultRun.of(ChargeTarget.class,
 *         "SELECT order_id, COUNT(*) FROM charges GROUP BY order_id")
 *     .kills(50)
 *     .run();
 * assertThat(report.ok()).as(report.summary()).isTrue();
 * }</pre>
 *
 * <p>How it goes: each child JVM opens the store on the file through a connection whose every
 * statement and commit is a point (before and after), hands the target a data source ({@link
 * FaultTarget#prepare(dev.onceonly.OnceOnly, javax.sql.DataSource)}) whose connections' statements
 * and commits are points too, and runs the target for a few keys in turn; the application's own
 * code adds points with {@link FaultPoints#reached}. A child stops at one point and the parent
 * kills it there: first a point of each class of points reached and not yet killed in (store or
 * application, before or after, commit or other statement; each named point a class), then a point
 * chosen at random among those its keys pass through (the points of a first, uninterrupted child
 * tell how many a key has). A key whose call returned is answered and never run again; the others
 * are run again in the next child, which may be killed in turn. After the kills one last child runs
 * every key still unanswered to the end. Then the effects query counts the effects per key: a key
 * counted more than once is a duplicate, a key counted zero times is lost; the report lists the
 * classes reached and never killed in.
 *
 * <p>On a database server ({@link #database(String, Properties)}: PostgreSQL, MariaDB) the children
 * connect to it instead, with a new connection per step for the store and per {@code getConnection}
 * for the application, and the effects query runs there. There the run can also give other faults
 * than kills ({@link #faults}): a commit whose answer is lost, a connection reset in the middle of
 * a transaction; a child given one of those goes on, and calls the target again for the key whose
 * call failed, as the application retries. Each fault's points are classes of their own, aimed at
 * as the kill's are, and counted in the report. On SQLite only {@link Fault#KILL} applies: its
 * connections are a file's, and there is no link to break. On a cluster (a multi-host URL, such as
 * PostgreSQL's {@code targetServerType=primary}) the run can also fail the cluster over, by a
 * trigger of yours ({@link #failover}), while the children run.
 *
 * <p>The children get the current {@code java}, the current class path (which must hold the
 * target), {@code -Xmx128m} and flags for a quick start; nothing of the parent's JVM options. Each
 * kill costs one JVM start, about half a second. Not thread-safe; build one per run.
 */
public final class FaultRun {
  private final String target;
  private final String effectsQuery;
  private int kills = 50;
  private int keys = 0;
  private int keysPerChild = 4;
  private int parallel = 1;
  private long seed = 1;
  private Path file;
  private String jdbcUrl;
  private Properties properties;
  private Set<Fault> faults = EnumSet.of(Fault.KILL);
  private Duration childTimeout = Duration.ofSeconds(60);
  private Runnable failover;
  private int failovers = 1;

  private FaultRun(String target, String effectsQuery) {
    this.target = Objects.requireNonNull(target, "target");
    this.effectsQuery = Objects.requireNonNull(effectsQuery, "effectsQuery");
    if (effectsQuery.isBlank()) {
      throw new IllegalArgumentException("effectsQuery must not be blank");
    }
  }

  /**
   * Returns a run of a target class.
   *
   * @param target the application's target: public, with a public no-argument constructor
   * @param effectsQuery the application's SQL that counts its effects per key, two columns {@code
   *     (key, count)}, such as {@code SELECT order_id, COUNT(*) FROM charges GROUP BY order_id}
   * @return the run, not started
   */
  public static FaultRun of(Class<? extends FaultTarget> target, String effectsQuery) {
    return new FaultRun(target.getName(), effectsQuery);
  }

  /**
   * Returns a run of a target named by its class name, for tools that load it from the class path.
   *
   * @param targetClass the binary name of a {@link FaultTarget} class on the class path
   * @param effectsQuery see {@link #of(Class, String)}
   * @return the run, not started
   */
  public static FaultRun of(String targetClass, String effectsQuery) {
    return new FaultRun(targetClass, effectsQuery);
  }

  /**
   * Sets how many child JVMs are killed, or given another fault of {@link #faults}: one each.
   * Default 50.
   *
   * @param kills from 1 to 100,000
   * @return this run
   */
  public FaultRun kills(int kills) {
    if (kills < 1 || kills > 100_000) {
      throw new IllegalArgumentException("kills must be between 1 and 100000");
    }
    this.kills = kills;
    return this;
  }

  /**
   * Sets how many keys the run does in all. Default twice the kills.
   *
   * @param keys from 1 to 1,000,000
   * @return this run
   */
  public FaultRun keys(int keys) {
    if (keys < 1 || keys > 1_000_000) {
      throw new IllegalArgumentException("keys must be between 1 and 1000000");
    }
    this.keys = keys;
    return this;
  }

  /**
   * Sets how many keys one child JVM is given. Default 4.
   *
   * @param keys from 1 to 1,000
   * @return this run
   */
  public FaultRun keysPerChild(int keys) {
    if (keys < 1 || keys > 1_000) {
      throw new IllegalArgumentException("keysPerChild must be between 1 and 1000");
    }
    this.keysPerChild = keys;
    return this;
  }

  /**
   * Sets how many child JVMs run at once, each on keys of its own, all on the one file (SQLite
   * takes one writer at a time; a killed writer's lock goes with its process). Default 1. Two halve
   * the time on an idle two-core machine; the kills may then exceed {@link #kills} by one less than
   * this, as children already running are killed too.
   *
   * @param children from 1 to 16
   * @return this run
   */
  public FaultRun parallel(int children) {
    if (children < 1 || children > 16) {
      throw new IllegalArgumentException("parallel must be between 1 and 16");
    }
    this.parallel = children;
    return this;
  }

  /**
   * Sets the random seed that chooses the kill points, so that a run can be repeated. Default 1.
   *
   * @param seed any
   * @return this run
   */
  public FaultRun seed(long seed) {
    this.seed = seed;
    return this;
  }

  /**
   * Sets the SQLite file the run works on. Default a new file in a new temporary folder. An
   * existing file is used as it is: its keys' effects count too.
   *
   * @param file the file; its folder must exist
   * @return this run
   */
  public FaultRun file(Path file) {
    this.file = Objects.requireNonNull(file, "file");
    this.jdbcUrl = null;
    return this;
  }

  /**
   * Runs on a database server instead of a SQLite file: the children open the store and the
   * application's connections with this URL and these properties, and the effects query runs there.
   * Its tables are used as they are: give a database of its own to each run, as an existing key's
   * effects count too. The properties reach the children on their standard input, not on their
   * command line; a password in the URL is visible in the process list.
   *
   * @param jdbcUrl such as {@code jdbc:postgresql://host:5432/db} or {@code
   *     jdbc:mariadb://host:3306/db}, its driver on the class path; for faults other than kills, a
   *     URL of one host
   * @param properties the connection properties, such as {@code user} and {@code password}; copied
   * @return this run
   * @throws IllegalArgumentException if the URL is not a JDBC URL, or is a SQLite one (see {@link
   *     #file})
   */
  public FaultRun database(String jdbcUrl, Properties properties) {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    Objects.requireNonNull(properties, "properties");
    if (!jdbcUrl.startsWith("jdbc:") || jdbcUrl.startsWith("jdbc:sqlite:")) {
      throw new IllegalArgumentException(
          "database takes a JDBC URL of a server, such as jdbc:postgresql://host:5432/db; for a"
              + " SQLite file use file(Path)");
    }
    this.jdbcUrl = jdbcUrl;
    this.properties = new Properties();
    this.properties.putAll(properties);
    this.file = null;
    return this;
  }

  /**
   * Sets the faults the children are given, one per child: the run aims at each fault's classes of
   * points and then chooses a fault at random for each child. Default {@link Fault#KILL} only.
   * Faults other than kills need a {@link #database} server.
   *
   * @param faults one or more
   * @return this run
   * @throws IllegalArgumentException if none is given
   */
  public FaultRun faults(Fault... faults) {
    if (faults.length == 0) {
      throw new IllegalArgumentException("faults must name at least one fault");
    }
    this.faults = EnumSet.copyOf(Arrays.asList(faults));
    return this;
  }

  /**
   * Fails the database cluster over while the children run, by {@code trigger}: the run cannot know
   * how your cluster fails over (Patroni, a cloud's API, a script), so it is told. A child stops
   * inside a transaction, with the transaction open, at the commit of one kind of transaction its
   * keys commit (each failover aimed at the next kind, named by its first write as the report names
   * it; further failovers at a random point inside a transaction), and waits there while the
   * trigger runs on one of the run's threads; then it goes on. Every child of a run with a failover
   * rides it through as an application does: a call that fails (the lost connection, no primary
   * yet) is made again for the same key, after a pause that doubles from 100 ms to 2 s, for up to
   * 90 seconds; a child that starts while there is no primary retries opening the store likewise.
   * Duplicates and lost effects are counted after the run on the cluster's new primary. Each
   * failover counts as one of the {@link #kills} and appears in the report's {@code killPoints} as
   * {@code failover: store: before COMMIT of INSERT INTO onceonly_receipts}.
   *
   * <p>The trigger must return once the cluster has been told to fail over, and should return once
   * a new primary takes writes (as {@code patronictl switchover --force} does); it is never run
   * twice at once. The URL given to {@link #database} must reach whichever node is primary, such as
   * {@code jdbc:postgresql://h1,h2,h3/db?targetServerType=primary}. A trigger that throws fails the
   * run with an {@link IllegalStateException}, and so does a trigger that returns without a
   * failover: the child's waiting transaction then goes on on the same connection, which the run
   * sees ({@code patronictl} answers a switchover it refuses with exit status 0). A child's time,
   * {@link #childTimeout}, does not count the trigger's.
   *
   * @param trigger fails the cluster over, such as by running {@code patronictl -c /etc/patroni.yml
   *     switchover --force}
   * @return this run
   */
  public FaultRun failover(Runnable trigger) {
    this.failover = Objects.requireNonNull(trigger, "trigger");
    return this;
  }

  /**
   * Sets how many times the run fails the cluster over with the trigger of {@link #failover},
   * spread over the run. Default 1.
   *
   * @param count from 1 to 100, and at most {@link #kills}
   * @return this run
   */
  public FaultRun failovers(int count) {
    if (count < 1 || count > 100) {
      throw new IllegalArgumentException("failovers must be between 1 and 100");
    }
    this.failovers = count;
    return this;
  }

  /**
   * Sets how long one child JVM may take before it is taken for hung. Default 60 seconds.
   *
   * @param timeout positive
   * @return this run
   */
  public FaultRun childTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("childTimeout must be > 0");
    }
    this.childTimeout = timeout;
    return this;
  }

  /**
   * Runs it: the kills, the last child that finishes every key, then the count.
   *
   * @return the report
   * @throws IllegalStateException if a child fails in another way than being killed (the target
   *     cannot be loaded or set up, a child hangs), or keys still fail after the last child
   * @throws IllegalArgumentException if the effects query fails, or faults other than kills are
   *     asked for on SQLite or on a URL of no single host, or a failover on SQLite or with more
   *     failovers than kills
   */
  public FaultReport run() {
    long started = System.nanoTime();
    if (jdbcUrl == null && !faults.equals(EnumSet.of(Fault.KILL))) {
      throw new IllegalArgumentException(
          "faults other than KILL need a database server (database(url, properties)); on SQLite"
              + " only kills apply");
    }
    if (jdbcUrl != null && !faults.equals(EnumSet.of(Fault.KILL))) {
      FaultChild.Server.parse(jdbcUrl); // one host, or a clear error before any child
    }
    if (failover != null && (jdbcUrl == null || failovers > kills)) {
      throw new IllegalArgumentException(
          jdbcUrl == null
              ? "a failover needs a database cluster (database(url, properties)); a SQLite file"
                  + " has none"
              : "failovers must be <= kills");
    }
    Path db = jdbcUrl != null ? newFolder().resolve("server") : file != null ? file : newFile();
    int total = keys > 0 ? keys : 2 * kills;
    List<String> all = new ArrayList<>();
    for (int i = 0; i < total; i++) {
      all.add(String.format(java.util.Locale.ROOT, "k-%06d", i));
    }
    Kills state = new Kills(new LinkedHashSet<>(all), new Random(seed));
    // the first child calibrates alone: how many points a key passes through
    state.done(List.of(), child(db, "0", state.firstBatch()), 0);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < parallel; i++) {
      Thread t = new Thread(() -> state.work(db), "fault-run-" + i);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the children ran", e);
      }
    }
    if (state.failure != null) {
      throw state.failure;
    }
    if (failover != null && state.failoversGiven < failovers) {
      throw new IllegalStateException(
          "the run gave "
              + state.failoversGiven
              + " of "
              + failovers
              + " failover(s): no child reached a commit inside a transaction, or too few keys"
              + " were left after the first child");
    }
    Set<String> unanswered = state.unanswered;
    Map<String, Integer> where = state.where;
    int children = state.children;
    int killed = state.killed;
    for (int attempt = 0; attempt < 3 && !unanswered.isEmpty(); attempt++) {
      FaultChildProcess.Result r = child(db, "0", List.copyOf(unanswered));
      r.seen().forEach(p -> state.seen.putIfAbsent(p, 0));
      children++;
      unanswered.removeAll(r.answered());
    }
    if (!unanswered.isEmpty()) {
      throw new IllegalStateException(
          unanswered.size()
              + " key(s) still fail after the last child, first "
              + unanswered.iterator().next());
    }
    Map<String, Long> effects = count(db);
    int faulted = state.faulted;
    long duplicates = 0;
    List<String> duplicated = new ArrayList<>();
    List<String> lost = new ArrayList<>();
    for (String k : all) {
      long n = effects.getOrDefault(k, 0L);
      if (n > 1) {
        duplicates += n - 1;
        duplicated.add(k);
      } else if (n == 0) {
        lost.add(k);
      }
    }
    return new FaultReport(
        killed,
        faulted,
        total,
        children,
        duplicates,
        duplicated,
        lost,
        where,
        state.reached(),
        jdbcUrl != null ? withoutSecrets(jdbcUrl) : db.toAbsolutePath().toString(),
        jdbcUrl != null ? null : db,
        Duration.ofNanos(System.nanoTime() - started));
  }

  /** How many children are aimed at one class of points before it is given up on. */
  private static final int TRIES = 3;

  /** What the killing children share: the keys, the kills so far, the points a key has. */
  private final class Kills {
    final Set<String> unanswered;
    final Set<String> inFlight = new HashSet<>();
    final Map<String, Integer> where = new TreeMap<>();

    /** Every class of points a child reached, in order, with the children aimed at it. */
    final Map<String, Integer> seen = new LinkedHashMap<>();

    final Set<String> aimedAt = new HashSet<>();
    final Random random;
    int children;
    int killed;
    int faulted;
    int killing;
    double pointsPerKey;
    final Map<Fault, Double> faultPointsPerKey = new EnumMap<>(Fault.class);
    RuntimeException failure;

    /**
     * The commits the children reached inside a transaction, by name, in order: failovers' aims.
     */
    final List<String> commits = new ArrayList<>();

    double openPointsPerKey;
    int failoversGiven;
    boolean failingOver;
    final int failoverSpan = Math.max(1, kills / failovers);
    final int failoverOffset;

    Kills(Set<String> unanswered, Random random) {
      this.unanswered = unanswered;
      this.random = random;
      this.failoverOffset = 1 + random.nextInt(Math.max(1, failoverSpan / 2));
    }

    /**
     * Whether the next child is given a failover: none is under way, and it is the child's turn
     * (the failovers spread over the kills, each a few children in) or the kills left are only
     * enough for the failovers left.
     */
    boolean failoverDue() {
      if (failover == null || failingOver || failoversGiven >= failovers) {
        return false;
      }
      return children >= 1 + failoversGiven * failoverSpan + failoverOffset
          || kills - (killed + faulted + killing) <= failovers - failoversGiven;
    }

    /**
     * Where the child of a failover waits: the commit of the next kind of transaction reached (the
     * n-th time it comes, n at random up to the keys), or a point at random inside a transaction.
     */
    String failoverStop(int keys) {
      if (failoversGiven < commits.size()) {
        return (1 + random.nextInt(keys)) + "^" + commits.get(failoversGiven);
      }
      int range = Math.max(1, (int) Math.ceil(Math.max(1, openPointsPerKey) * keys));
      return (1 + random.nextInt(range)) + "^";
    }

    synchronized List<String> firstBatch() {
      return unanswered.stream().limit(keysPerChild).toList();
    }

    /** Runs children until the kills are done, the keys are out or a child failed. */
    void work(Path db) {
      while (true) {
        List<String> batch;
        String target;
        boolean failsOver;
        synchronized (this) {
          while (true) {
            if (failure != null
                || killed + faulted + killing >= kills
                || children >= kills * 4 + 1) {
              notifyAll();
              return;
            }
            batch =
                unanswered.stream().filter(k -> !inFlight.contains(k)).limit(keysPerChild).toList();
            if (!batch.isEmpty()) {
              break;
            }
            if (killing == 0) {
              return; // every key answered
            }
            try {
              wait();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return;
            }
          }
          inFlight.addAll(batch);
          killing++;
          children++;
          failsOver = failoverDue();
          failingOver |= failsOver;
          target = failsOver ? failoverStop(batch.size()) : aim(batch.size());
        }
        try {
          done(batch, child(db, target, batch), 1);
        } catch (RuntimeException e) {
          synchronized (this) {
            failure = failure == null ? e : failure;
            inFlight.removeAll(batch);
            killing--;
            notifyAll();
          }
          return;
        } finally {
          synchronized (this) {
            aimedAt.remove(target.substring(target.indexOf('@') + 1));
            failingOver &= !failsOver;
          }
        }
      }
    }

    /**
     * Chooses where the next child stops: first each class of points reached so far and not yet
     * killed at, the application's before the store's (its n-th point, n at random up to the keys;
     * a class on a path not every key takes may not come that often, so it is tried {@value #TRIES}
     * times, from its first point after the first try), then a point at random among all its keys
     * pass through.
     */
    String aim(int keys) {
      // the application's classes first: a run of few kills must land one around its effect
      for (boolean application : new boolean[] {true, false}) {
        for (Map.Entry<String, Integer> e : seen.entrySet()) {
          String name = e.getKey();
          boolean store = name.substring(Fault.of(name).prefix().length()).startsWith("store: ");
          if (store != application
              && !killedIn(name)
              && e.getValue() < TRIES
              && !aimedAt.contains(name)) {
            int n = e.getValue() == 0 ? 1 + random.nextInt(keys) : 1;
            e.setValue(e.getValue() + 1);
            aimedAt.add(name);
            return n + "@" + name;
          }
        }
      }
      List<Fault> chosen = List.copyOf(faults);
      Fault fault = chosen.get(random.nextInt(chosen.size()));
      if (fault == Fault.KILL) {
        int range = Math.max(1, (int) Math.ceil(Math.max(1, pointsPerKey) * keys));
        return Integer.toString(1 + random.nextInt(range));
      }
      double perKey = faultPointsPerKey.getOrDefault(fault, pointsPerKey);
      int range = Math.max(1, (int) Math.ceil(Math.max(1, perKey) * keys));
      return (1 + random.nextInt(range)) + "!" + fault;
    }

    private boolean killedIn(String kind) {
      return where.keySet().stream().anyMatch(p -> FaultChild.classOf(p).equals(kind));
    }

    synchronized List<String> reached() {
      return List.copyOf(seen.keySet());
    }

    synchronized void done(List<String> batch, FaultChildProcess.Result r, int wasKilling) {
      r.seen().forEach(p -> seen.putIfAbsent(p, 0));
      r.commits().stream().filter(c -> !commits.contains(c)).forEach(commits::add);
      if (wasKilling == 0) {
        children++;
      }
      inFlight.removeAll(batch);
      killing -= wasKilling;
      unanswered.removeAll(r.answered());
      if (r.killPoint() != null) {
        killed++;
        where.merge(r.killPoint(), 1, Integer::sum);
      } else if (r.faultPoint() != null) {
        faulted++;
        failoversGiven += r.faultPoint().startsWith(FaultReport.FAILOVER) ? 1 : 0;
        where.merge(r.faultPoint(), 1, Integer::sum);
      } else if (!r.answered().isEmpty()) {
        pointsPerKey = Math.max(pointsPerKey, (double) r.points() / r.answered().size());
        openPointsPerKey =
            Math.max(openPointsPerKey, (double) r.openPoints() / r.answered().size());
        r.faultPoints()
            .forEach(
                (f, n) -> faultPointsPerKey.merge(f, (double) n / r.answered().size(), Math::max));
      }
      notifyAll();
    }
  }

  private static Path newFile() {
    return newFolder().resolve("store.db");
  }

  private static Path newFolder() {
    try {
      return Files.createTempDirectory("onceonly-fault-run");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a folder for the run's database", e);
    }
  }

  /** Returns the URL without its parameters and user information, for the report. */
  static String withoutSecrets(String url) {
    int query = url.indexOf('?');
    String base = query < 0 ? url : url.substring(0, query);
    return base.replaceFirst("//[^/@]*@", "//");
  }

  /** Runs one child JVM on the keys, to stop as {@code stop} says (see {@link FaultChild}). */
  private FaultChildProcess.Result child(Path db, String stop, List<String> batch) {
    return new FaultChildProcess(target, jdbcUrl, properties, faults, failover, childTimeout)
        .run(db, stop, batch);
  }

  /**
   * Counts the effects per key; after a failover, waits up to two minutes for a primary that
   * answers (a connection error, SQL state class 08).
   */
  private Map<String, Long> count(Path db) {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    for (long pause = 100; ; pause = Math.min(2_000, pause * 2)) {
      try {
        return countOnce(db);
      } catch (IllegalArgumentException e) {
        boolean connection =
            e.getCause() instanceof SQLException s
                && s.getSQLState() != null
                && s.getSQLState().startsWith("08");
        if (failover == null || !connection || System.nanoTime() > deadline) {
          throw e;
        }
        FaultChild.pause(pause);
      }
    }
  }

  private Map<String, Long> countOnce(Path db) {
    Map<String, Long> out = new HashMap<>();
    try (Connection c =
            jdbcUrl != null
                ? DriverManager.getConnection(jdbcUrl, properties)
                : DriverManager.getConnection("jdbc:sqlite:" + db.toAbsolutePath());
        PreparedStatement ps = c.prepareStatement(effectsQuery);
        ResultSet rs = ps.executeQuery()) {
      if (rs.getMetaData().getColumnCount() != 2) {
        throw new IllegalArgumentException("effectsQuery must return two columns: key, count");
      }
      while (rs.next()) {
        out.merge(rs.getString(1), rs.getLong(2), Long::sum);
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalArgumentException("effectsQuery failed: " + e.getMessage(), e);
    }
  }
}
