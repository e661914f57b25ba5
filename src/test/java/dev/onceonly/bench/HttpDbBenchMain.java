package dev.onceonly.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.http.IdempotencyFilter;
import dev.onceonly.http.Route;
import dev.onceonly.http.ScopeResolver;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * {@link HttpBenchMain} on PostgreSQL ({@code db=postgresql}, the tests' embedded server) or
 * MariaDB ({@code db=mariadb}, the tests' {@code mariadbd}), with the floor each row is held to
 * measured in the same run ({@link HttpDbFloor}). The application's pool is HikariCP; the store is
 * built with {@code OnceOnly.builder().dataSource(pool)}, as docs/http.md tells users: the plain
 * mode on a store without the application's transactions, the transactional mode on one that joins
 * them ({@code currentTransaction}), the application's transactions taken from the pool one at a
 * time as Spring's {@code DataSourceTransactionManager} takes them ({@link PooledTransactions}).
 * The handler writes one row ({@code payments}) in the filter's transaction, or in one of its own.
 *
 * <p>For each {@code clients=} count: the floors A B C, then each case (plain, transactional, a new
 * key per request) A B B A against the bare endpoint, then the floors C B A; the rows are counted
 * against the handler runs after every run (a mismatch fails the run), and the load average is
 * printed with each. A figure is the mean of its two runs. "Share of floor" is (filtered / bare) /
 * (floor of the mode / floor of the bare row): how much of what the database alone allows the
 * filter keeps. {@code count=1} ends each case with a short run of each endpoint through a data
 * source that counts the driver calls, and prints them per request.
 *
 * <p>Run: {@code mvn -B -o -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.HttpBenchMain -Dbench.args="db=postgresql seconds=5
 * clients=4,16"}; {@code durable=1} runs on a server that syncs every commit instead of the tests'
 * fast one; {@code cases=plain,tx}; {@code warmup=3 warmupPasses=20}.
 */
public final class HttpDbBenchMain {
  private HttpDbBenchMain() {}

  /** What a client sends. */
  enum Endpoint {
    BARE("/direct"),
    PLAIN("/plain"),
    TX("/tx");

    final String path;

    Endpoint(String path) {
      this.path = path;
    }
  }

  /**
   * One run: its rate, its counts, the load average at its start, and the CPU time a request took
   * in this JVM (HTTP client, Jetty, filter, driver) and in the database server, in ms.
   */
  record Run(
      double rate,
      long answers,
      long handlerRuns,
      long rows,
      String load,
      double jvmMs,
      double serverMs) {
    boolean ok() {
      return handlerRuns == rows && answers == rows;
    }
  }

  private static HttpBenchDatabase db;

  /**
   * The store's warning that the server does not sync its commits, said once per store; the
   * settings are printed once at the start instead. Held here: a logger only weakly referenced
   * forgets its level.
   */
  private static final Logger DURABILITY_LOG = Logger.getLogger("dev.onceonly.OnceOnly");

  public static void main(String[] args) throws Exception {
    Logger.getLogger("").setLevel(Level.WARNING);
    DURABILITY_LOG.setLevel(Level.SEVERE);
    Map<String, String> a = WorkerBenchMain.arguments(args);
    db = HttpBenchDatabase.of(a.getOrDefault("db", "postgresql"));
    int seconds = Integer.parseInt(a.getOrDefault("seconds", "5"));
    boolean count = "1".equals(a.get("count"));
    String settings = db.start("1".equals(a.get("durable")));
    String header =
        String.format(
            Locale.ROOT,
            "%s: %s; HikariCP, %s%n",
            db.name().toLowerCase(Locale.ROOT),
            settings,
            "RawHttpClient, one keep-alive connection per client thread");
    System.out.print(header);
    List<Endpoint> cases = new ArrayList<>();
    for (String c : a.getOrDefault("cases", "plain,tx").split(",")) {
      cases.add(Endpoint.valueOf(c.trim().toUpperCase(Locale.ROOT)));
    }
    List<Integer> clientCounts = new ArrayList<>();
    for (String c : a.getOrDefault("clients", "4").split(",")) {
      clientCounts.add(Integer.parseInt(c.trim()));
    }
    warmUp(
        Integer.parseInt(a.getOrDefault("warmup", "3")),
        Integer.parseInt(a.getOrDefault("warmupPasses", "20")),
        clientCounts.get(0));
    StringBuilder all = new StringBuilder(header);
    boolean mismatch = false;
    for (int clients : clientCounts) {
      Map<HttpDbFloor.Shape, HttpDbFloor.Result[]> floors = new EnumMap<>(HttpDbFloor.Shape.class);
      List<HttpDbFloor.Shape> order = new ArrayList<>(List.of(HttpDbFloor.Shape.values()));
      List<String> floorLoads = new ArrayList<>();
      for (HttpDbFloor.Shape s : order) {
        floorLoads.add(WorkerBenchMain.loadAverage());
        floors.put(s, new HttpDbFloor.Result[] {HttpDbFloor.run(db, s, clients, seconds), null});
      }
      List<Run[]> runs = new ArrayList<>();
      for (Endpoint guarded : cases) {
        Run a1 = run(Endpoint.BARE, seconds, clients, null);
        Run b1 = run(guarded, seconds, clients, null);
        Run b2 = run(guarded, seconds, clients, null);
        Run a2 = run(Endpoint.BARE, seconds, clients, null);
        runs.add(new Run[] {a1, b1, b2, a2});
        mismatch |= !(a1.ok() && b1.ok() && b2.ok() && a2.ok());
        if (count) {
          for (Endpoint e : List.of(Endpoint.BARE, guarded)) {
            JdbcCallCounts counts = new JdbcCallCounts();
            Run r = run(e, 2, clients, counts);
            mismatch |= !r.ok();
            System.out.printf(
                Locale.ROOT, "driver calls, %s:%n%s", e, counts.perRequest(r.answers));
          }
        }
      }
      java.util.Collections.reverse(order);
      for (HttpDbFloor.Shape s : order) {
        floors.get(s)[1] = HttpDbFloor.run(db, s, clients, seconds);
        floorLoads.add(WorkerBenchMain.loadAverage());
      }
      String table = table(clients, cases, runs, floors, floorLoads);
      System.out.println(table);
      all.append(table);
    }
    Path out =
        Path.of("target", "benchmarks", "http-" + db.name().toLowerCase(Locale.ROOT) + ".md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, all.toString());
    System.out.println(all);
    if (mismatch) {
      System.out.println("COUNT MISMATCH: rows and handler runs differ (see the runs above)");
      System.exit(1);
    }
    System.exit(0); // the embedded servers' shutdown hooks stop them
  }

  private static double rate(HttpDbFloor.Result[] r) {
    return (r[0].rate() + r[1].rate()) / 2;
  }

  /** The figures of one {@code clients} count, as markdown. */
  static String table(
      int clients,
      List<Endpoint> cases,
      List<Run[]> runs,
      Map<HttpDbFloor.Shape, HttpDbFloor.Result[]> floors,
      List<String> floorLoads) {
    StringBuilder t = new StringBuilder();
    t.append(
        String.format(
            Locale.ROOT,
            "%n%d clients%n%n| case | bare req/s (runs) | filtered req/s (runs) | filtered / bare"
                + " | floor of the mode req/s (runs) | floor / bare floor | filtered / floor |"
                + " share of floor | rows = handler runs | load avg (A; B; B; A) |%n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---|---|%n",
            clients));
    double floorBare = rate(floors.get(HttpDbFloor.Shape.BARE));
    StringBuilder cpu =
        new StringBuilder(
            "| endpoint | JVM CPU ms a request (runs) | server CPU ms a request (runs) |\n"
                + "|---|---:|---:|\n");
    for (int i = 0; i < cases.size(); i++) {
      Run[] r = runs.get(i);
      boolean plain = cases.get(i) == Endpoint.PLAIN;
      HttpDbFloor.Result[] f = floors.get(plain ? HttpDbFloor.Shape.PLAIN : HttpDbFloor.Shape.TX);
      double bare = (r[0].rate + r[3].rate) / 2;
      double filtered = (r[1].rate + r[2].rate) / 2;
      double floorMode = rate(f);
      boolean ok = r[0].ok() && r[1].ok() && r[2].ok() && r[3].ok();
      t.append(
          String.format(
              Locale.ROOT,
              "| %s | %,.0f (%,.0f, %,.0f) | %,.0f (%,.0f, %,.0f) | %.2f | %,.0f (%,.0f, %,.0f) |"
                  + " %.2f | %.2f | **%.2f** | %s | %s; %s; %s; %s |%n",
              plain ? "plain" : "transactional",
              bare,
              r[0].rate,
              r[3].rate,
              filtered,
              r[1].rate,
              r[2].rate,
              filtered / bare,
              floorMode,
              f[0].rate(),
              f[1].rate(),
              floorMode / floorBare,
              filtered / floorMode,
              (filtered / bare) / (floorMode / floorBare),
              ok ? "yes" : "NO",
              r[0].load,
              r[1].load,
              r[2].load,
              r[3].load));
      cpu.append(cpuRow((plain ? "plain" : "transactional") + ": bare", r[0], r[3]));
      cpu.append(cpuRow((plain ? "plain" : "transactional") + ": filtered", r[1], r[2]));
    }
    for (HttpDbFloor.Shape s : HttpDbFloor.Shape.values()) {
      HttpDbFloor.Result[] f = floors.get(s);
      cpu.append(
          String.format(
              Locale.ROOT,
              "| floor %s | %.3f (%.3f, %.3f) | %.3f (%.3f, %.3f) |%n",
              s,
              (f[0].jvmMs() + f[1].jvmMs()) / 2,
              f[0].jvmMs(),
              f[1].jvmMs(),
              (f[0].serverMs() + f[1].serverMs()) / 2,
              f[0].serverMs(),
              f[1].serverMs()));
    }
    t.append(
        String.format(
            Locale.ROOT,
            "%nfloors, raw JDBC, %d threads (runs A B C, then C B A; load %s):%n%n",
            clients,
            String.join("; ", floorLoads)));
    for (HttpDbFloor.Shape s : HttpDbFloor.Shape.values()) {
      HttpDbFloor.Result[] f = floors.get(s);
      t.append(
          String.format(
              Locale.ROOT,
              "- %s %,.0f (%,.0f, %,.0f), %.2f of the bare floor: %s%n",
              s,
              rate(f),
              f[0].rate(),
              f[1].rate(),
              rate(f) / floorBare,
              s.title));
    }
    return t.append('\n').append(cpu).toString();
  }

  private static String cpuRow(String name, Run r1, Run r2) {
    return String.format(
        Locale.ROOT,
        "| %s | %.3f (%.3f, %.3f) | %.3f (%.3f, %.3f) |%n",
        name,
        (r1.jvmMs + r2.jvmMs) / 2,
        r1.jvmMs,
        r2.jvmMs,
        (r1.serverMs + r2.serverMs) / 2,
        r1.serverMs,
        r2.serverMs);
  }

  /**
   * Every endpoint and floor, pass after pass, until the JIT is quiet (as {@link
   * HttpBenchMain#warmUp}), at most {@code maxPasses}.
   */
  static void warmUp(int seconds, int maxPasses, int clients) throws Exception {
    for (int pass = 1; pass <= maxPasses; pass++) {
      long jit = HttpBenchMain.jitMillis();
      long start = System.nanoTime();
      System.out.println("warm-up pass " + pass + ", not counted:");
      for (Endpoint e : Endpoint.values()) {
        run(e, seconds, clients, null);
      }
      for (HttpDbFloor.Shape s : HttpDbFloor.Shape.values()) {
        HttpDbFloor.run(db, s, clients, 1);
      }
      double wall = (System.nanoTime() - start) / 1e6;
      long compiled = HttpBenchMain.jitMillis() - jit;
      System.out.printf(
          Locale.ROOT,
          "warm-up pass %d: the JIT compiled for %d ms of %.0f ms (%.1f%%)%n",
          pass,
          compiled,
          wall,
          100 * compiled / wall);
      if (compiled < HttpBenchMain.QUIET_JIT_SHARE * wall) {
        return;
      }
    }
    System.out.println(
        "WARM-UP DID NOT SETTLE after " + maxPasses + " passes; figures include JIT");
  }

  /**
   * One run on a fresh database: the pool, the two stores, a Jetty server, {@code clients} threads
   * sending for {@code seconds}; {@code counts} non-null counts the driver calls.
   */
  static Run run(Endpoint target, int seconds, int clients, JdbcCallCounts counts)
      throws Exception {
    String database = db.newDatabase("http");
    try (HikariDataSource hikari = db.pool(database, 2 * clients + 8)) {
      DataSource ds = counts == null ? hikari : counts.wrap(hikari);
      try (Connection c = ds.getConnection()) {
        c.createStatement()
            .execute("CREATE TABLE payments (id VARCHAR(64) PRIMARY KEY, amount BIGINT NOT NULL)");
      }
      PooledTransactions tx = new PooledTransactions(ds);
      AtomicLong handlerRuns = new AtomicLong();
      try (OnceOnly own = OnceOnly.builder().dataSource(ds).build();
          OnceOnly joined = OnceOnly.builder().dataSource(ds).currentTransaction(tx).build()) {
        IdempotencyFilter plain =
            IdempotencyFilter.builder(own)
                .route(Route.builder("plain").path("/plain").build())
                .scope(ScopeResolver.fixed("bench"))
                .build();
        IdempotencyFilter transactional =
            IdempotencyFilter.builder(joined)
                .route(Route.builder("tx").path("/tx").build())
                .scope(ScopeResolver.fixed("bench"))
                .transactional(tx)
                .build();
        Server server = new Server(0);
        ServletContextHandler context = new ServletContextHandler();
        context.addFilter(new FilterHolder(plain), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addFilter(
            new FilterHolder(transactional), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new Handler(tx, handlerRuns)), "/*");
        server.setHandler(context);
        server.start();
        try {
          int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
          if (counts != null) {
            counts.reset(); // the migrations' and the warm connections' calls are not a request's
          }
          return drive(target, port, seconds, clients, handlerRuns, hikari);
        } finally {
          server.stop();
        }
      }
    } finally {
      db.drop(database);
    }
  }

  static Run drive(
      Endpoint target, int port, int seconds, int clients, AtomicLong handlerRuns, DataSource ds)
      throws Exception {
    URI uri = URI.create("http://localhost:" + port + target.path);
    String load = WorkerBenchMain.loadAverage();
    long jit = HttpBenchMain.jitMillis();
    long jvm = HttpBenchDatabase.jvmCpuNanos();
    long server = HttpBenchDatabase.serverCpuNanos();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong answers = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    List<Future<?>> running = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < clients; i++) {
      running.add(
          pool.submit(
              () -> {
                try (HttpBenchMain.Sender sender = HttpBenchMain.sender(null, uri)) {
                  while (!stop.get()) {
                    int status = sender.send(UUID.randomUUID().toString());
                    if (status != 201) {
                      throw new IllegalStateException("status " + status);
                    }
                    answers.incrementAndGet();
                  }
                }
                return null;
              }));
    }
    Thread.sleep(seconds * 1000L); // the measuring window, not a wait for a condition
    stop.set(true);
    for (Future<?> f : running) {
      f.get();
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    double jvmMs = (HttpBenchDatabase.jvmCpuNanos() - jvm) / 1e6 / Math.max(1, answers.get());
    double serverMs =
        (HttpBenchDatabase.serverCpuNanos() - server) / 1e6 / Math.max(1, answers.get());
    pool.shutdown();
    long rows;
    try (Connection c = ds.getConnection()) {
      rows = BenchDb.count(c, "SELECT COUNT(*) FROM payments");
    }
    Run r =
        new Run(
            answers.get() / elapsed, answers.get(), handlerRuns.get(), rows, load, jvmMs, serverMs);
    System.out.printf(
        Locale.ROOT,
        "%-6s %2d clients %8.0f req/s  answers=%d handler runs=%d rows=%d%s, CPU a request: JVM"
            + " %.3f ms, server %.3f ms; load %s, JIT %d ms%n",
        target,
        clients,
        r.rate,
        r.answers,
        r.handlerRuns,
        r.rows,
        r.ok() ? "" : " MISMATCH",
        jvmMs,
        serverMs,
        load,
        HttpBenchMain.jitMillis() - jit);
    return r;
  }

  /** The handler: one row, in the filter's transaction if it gave one, else in its own. */
  static final class Handler extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient PooledTransactions tx;
    private final transient AtomicLong runs;

    Handler(PooledTransactions tx, AtomicLong runs) {
      this.tx = tx;
      this.runs = runs;
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
      req.getInputStream().readAllBytes();
      String id = UUID.randomUUID().toString();
      try {
        tx.inTransaction(() -> insert(tx.connection(), id)); // joins the filter's, if it opened one
      } catch (SQLException e) {
        throw new IOException(e);
      }
      runs.incrementAndGet();
      res.setStatus(201);
      res.setContentType("application/json");
      res.getOutputStream().write(("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8));
    }

    private static Void insert(Connection c, String id) throws SQLException {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO payments VALUES (?, 1250)")) {
        ps.setString(1, id);
        ps.executeUpdate();
      }
      return null;
    }
  }
}
