package dev.onceonly.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.CurrentTransaction;
import dev.onceonly.OnceOnly;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.http.HandlerTransaction;
import dev.onceonly.http.IdempotencyFilter;
import dev.onceonly.http.Route;
import dev.onceonly.http.ScopeResolver;
import dev.onceonly.sql.SqliteWriteTurns;
import dev.onceonly.testing.ThreadTransactions;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * Requests per second through {@link IdempotencyFilter} against the same endpoint without it, in
 * one run, on a real Jetty server driven by {@link RawHttpClient}, one keep-alive connection per
 * client thread ({@code client=jdk}: {@code java.net.http.HttpClient}). The handler writes one row
 * ({@code payments(id TEXT PRIMARY KEY, amount BIGINT)}) to a SQLite file in WAL with {@code
 * synchronous=FULL}, in a transaction of its own when no filter gave it one.
 *
 * <p>Cases, each against the bare endpoint in the order A B B A (a figure is the mean of its two
 * runs, the load average printed with each): <b>plain</b> (new key per request, the plain mode on a
 * store opened with {@code sqlite(file)}: a claim, the handler's transaction, the completion),
 * <b>transactional</b> (new key per request, the transactional mode without Spring: the receipt and
 * the row in one transaction, through a small {@link HandlerTransaction} and {@link
 * CurrentTransaction} over one connection per thread), and <b>replay</b> (one key, every request
 * answered from the stored response). After each run the rows are counted and compared with the
 * handler runs the client saw; a mismatch is reported loudly. Each run has a fresh file.
 *
 * <p>Run: {@code mvn -B -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.HttpBenchMain -Dbench.args="seconds=5 clients=4"} (every endpoint
 * first runs {@code warmup=3} seconds at a time, uncounted, pass after pass until the JIT is quiet,
 * at most {@code warmupPasses=40} passes, and each run prints the JIT's compile time during it;
 * {@code cases=plain,tx,replay,queued} chooses the cases, for a profile of one; {@code
 * replayCache=0} turns the plain filter's replay cache off; {@code turns=0} leaves the
 * application's pool unwrapped by {@link SqliteWriteTurns}, so that its writers sleep in SQLite's
 * busy handler; {@code turns=ab} compares each endpoint wrapped and unwrapped, A B B A). {@code
 * db=postgresql} or {@code db=mariadb} runs {@link HttpDbBenchMain} instead (the default: {@code
 * db=sqlite}, this class).
 */
public final class HttpBenchMain {
  private HttpBenchMain() {}

  /** The plain filter's replay cache; {@code replayCache=0} measures replays answered by a read. */
  private static long replayCacheBytes;

  /** Whether the application's pool is wrapped in {@link SqliteWriteTurns}; {@code turns=0} not. */
  private static boolean writeTurns;

  /** What a client sends. */
  enum Path_ {
    DIRECT("/direct"),
    PLAIN("/plain"),
    TX("/tx"),
    REPLAY("/plain"),
    /** The bare endpoint whose handler writes through the store's queue ({@code inTransaction}). */
    QUEUED_DIRECT("/queued/direct"),
    /** The plain mode, the handler writing through the store's queue. */
    QUEUED("/queued/plain");

    final String path;

    Path_(String path) {
      this.path = path;
    }
  }

  record Run(
      double rate,
      long answers,
      long handlerRuns,
      long rows,
      String load,
      long commits,
      long steps) {
    boolean ok() {
      return handlerRuns == rows;
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(eq < 0 ? arg : arg.substring(0, eq), eq < 0 ? "" : arg.substring(eq + 1));
    }
    if (!"sqlite".equals(a.getOrDefault("db", "sqlite"))) {
      HttpDbBenchMain.main(args); // db=postgresql or db=mariadb, with the floors in the same run
      return;
    }
    int seconds = Integer.parseInt(a.getOrDefault("seconds", "5"));
    int clients = Integer.parseInt(a.getOrDefault("clients", "4"));
    replayCacheBytes =
        Long.parseLong(
            a.getOrDefault(
                "replayCache", Long.toString(IdempotencyFilter.DEFAULT_REPLAY_CACHE_BYTES)));
    writeTurns = !"0".equals(a.getOrDefault("turns", "1"));
    jdkClient = "jdk".equals(a.getOrDefault("client", "raw"));
    System.out.println("client: " + (jdkClient ? "java.net.http.HttpClient" : "RawHttpClient"));
    System.out.println("application pool wrapped in SqliteWriteTurns: " + writeTurns);
    if ("ab".equals(a.get("turns"))) {
      compareTurns(a, seconds, clients);
      return;
    }
    StringBuilder table = new StringBuilder();
    table.append(
        "| case | endpoint | req/s (mean) | run 1 | run 2 | filtered / bare | rows = handler runs |"
            + " load avg (run 1; run 2) |\n|---|---|---:|---:|---:|---:|---|---|\n");
    List<String> mismatches = new ArrayList<>();
    int warmup = Integer.parseInt(a.getOrDefault("warmup", "3"));
    int maxPasses = Integer.parseInt(a.getOrDefault("warmupPasses", "40"));
    warmUp(warmup, maxPasses, clients);
    List<Path_> cases = new ArrayList<>();
    for (String c : a.getOrDefault("cases", "plain,tx,replay").split(",")) {
      cases.add(Path_.valueOf(c.trim().toUpperCase(Locale.ROOT)));
    }
    for (Path_ guarded : cases) {
      Path_ peer = guarded == Path_.QUEUED ? Path_.QUEUED_DIRECT : Path_.DIRECT;
      Run a1 = run(peer, seconds, clients);
      Run b1 = run(guarded, seconds, clients);
      Run b2 = run(guarded, seconds, clients);
      Run a2 = run(peer, seconds, clients);
      double bare = (a1.rate + a2.rate) / 2;
      double filtered = (b1.rate + b2.rate) / 2;
      String name = guarded.name().toLowerCase(Locale.ROOT);
      for (Run r : List.of(a1, b1, b2, a2)) {
        if (!r.ok()) {
          mismatches.add(name + ": " + r);
        }
      }
      table.append(row(name, "bare", bare, a1, a2, "", a1.ok() && a2.ok()));
      table.append(
          row(
              name,
              "through the filter",
              filtered,
              b1,
              b2,
              String.format(Locale.ROOT, "%.2f", filtered / bare),
              b1.ok() && b2.ok()));
    }
    System.out.println();
    System.out.println(table);
    Path out = Path.of("target", "benchmarks", "http.md");
    Files.createDirectories(out.getParent());
    Files.writeString(out, table.toString());
    if (!mismatches.isEmpty()) {
      System.out.println("COUNT MISMATCH: " + mismatches);
      System.exit(1);
    }
  }

  /**
   * {@code turns=ab}: every endpoint of the chosen cases with the application's pool wrapped in
   * {@link SqliteWriteTurns} (A) and bare (B), A B B A in one process after the warm-up, so that
   * the machine's drift over minutes (its disk's fsync rate moves by half) is not charged to
   * either.
   */
  static void compareTurns(Map<String, String> a, int seconds, int clients) throws Exception {
    warmUp(
        Integer.parseInt(a.getOrDefault("warmup", "3")),
        Integer.parseInt(a.getOrDefault("warmupPasses", "40")),
        clients);
    StringBuilder table =
        new StringBuilder(
            "| endpoint | wrapped req/s (runs) | unwrapped req/s (runs) | wrapped / unwrapped |"
                + " load avg (first; last) |\n|---|---:|---:|---:|---|\n");
    List<Path_> endpoints = new ArrayList<>();
    for (String c : a.getOrDefault("cases", "plain,tx").split(",")) {
      Path_ guarded = Path_.valueOf(c.trim().toUpperCase(Locale.ROOT));
      Path_ peer = guarded == Path_.QUEUED ? Path_.QUEUED_DIRECT : Path_.DIRECT;
      if (!endpoints.contains(peer)) {
        endpoints.add(peer);
      }
      endpoints.add(guarded);
    }
    boolean mismatch = false;
    for (Path_ p : endpoints) {
      writeTurns = true;
      Run a1 = run(p, seconds, clients);
      writeTurns = false;
      Run b1 = run(p, seconds, clients);
      Run b2 = run(p, seconds, clients);
      writeTurns = true;
      Run a2 = run(p, seconds, clients);
      mismatch |= !(a1.ok() && b1.ok() && b2.ok() && a2.ok());
      double wrapped = (a1.rate + a2.rate) / 2;
      double bare = (b1.rate + b2.rate) / 2;
      table.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f (%.0f, %.0f) | %.0f (%.0f, %.0f) | %.2fx | %s; %s |%n",
              p.name().toLowerCase(Locale.ROOT),
              wrapped,
              a1.rate,
              a2.rate,
              bare,
              b1.rate,
              b2.rate,
              wrapped / bare,
              a1.load,
              a2.load));
    }
    System.out.println();
    System.out.println(table);
    if (mismatch) {
      System.out.println("COUNT MISMATCH");
      System.exit(1);
    }
  }

  /**
   * Runs every endpoint for {@code seconds}, uncounted, pass after pass, until the JIT is quiet: a
   * pass in which the compilers worked less than {@value #QUIET_JIT_SHARE} of its wall time (each
   * run builds a new server, store and client, and C2 keeps compiling for a minute or more on two
   * cores; figures taken before that measure the compiler). At most {@code maxPasses} passes; a
   * warm-up that did not settle is said.
   */
  static void warmUp(int seconds, int maxPasses, int clients) throws Exception {
    for (int pass = 1; pass <= maxPasses; pass++) {
      long jit = jitMillis();
      long start = System.nanoTime();
      System.out.println("warm-up pass " + pass + ", not counted:");
      for (Path_ p : Path_.values()) {
        if (p != Path_.QUEUED_DIRECT) { // its warm-up is QUEUED's
          run(p, seconds, clients);
        }
      }
      double wall = (System.nanoTime() - start) / 1e6;
      long compiled = jitMillis() - jit;
      System.out.printf(
          Locale.ROOT,
          "warm-up pass %d: the JIT compiled for %d ms of %.0f ms (%.1f%%)%n",
          pass,
          compiled,
          wall,
          100 * compiled / wall);
      if (compiled < QUIET_JIT_SHARE * wall) {
        return;
      }
    }
    System.out.println(
        "WARM-UP DID NOT SETTLE after " + maxPasses + " passes; figures include JIT");
  }

  /** The share of a pass's wall time under which the JIT counts as quiet. */
  static final double QUIET_JIT_SHARE = 0.02;

  /** The JIT's total compilation time so far, in ms. */
  static long jitMillis() {
    return java.lang.management.ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
  }

  static String row(
      String name, String endpoint, double mean, Run r1, Run r2, String ratio, boolean ok) {
    return String.format(
        Locale.ROOT,
        "| %s | %s | %.0f | %.0f | %.0f | %s | %s | %s; %s |%n",
        name,
        endpoint,
        mean,
        r1.rate,
        r2.rate,
        ratio,
        ok ? "yes" : "NO",
        r1.load,
        r2.load);
  }

  static String load() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  /**
   * The application's HikariCP pool on {@code file}: WAL, {@code synchronous=FULL}, transactions
   * begun {@code IMMEDIATE}, a busy timeout of 30 s.
   */
  static HikariDataSource applicationPool(Path file, int size) {
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    config.setBusyTimeout(30_000);
    config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
    SQLiteDataSource sqlite = new SQLiteDataSource(config);
    sqlite.setUrl("jdbc:sqlite:" + file);
    HikariConfig pool = new HikariConfig();
    pool.setDataSource(sqlite);
    pool.setMaximumPoolSize(size);
    return new HikariDataSource(pool);
  }

  /** One run: a fresh file, a server, {@code clients} threads sending for {@code seconds}. */
  static Run run(Path_ target, int seconds, int clients) throws Exception {
    Path dir = Files.createTempDirectory("onceonly-http-bench");
    Path file = dir.resolve("bench.db");
    // A pool, as an application has one: OnceOnly takes a connection per call.
    HikariDataSource hikari = applicationPool(file, 64);
    // As docs/http.md tells users: the application's writers queue with the store's in memory.
    DataSource ds = writeTurns ? SqliteWriteTurns.wrap(hikari) : hikari;
    try (Connection c = ds.getConnection()) {
      c.createStatement()
          .execute("CREATE TABLE payments (id VARCHAR(64) PRIMARY KEY, amount BIGINT NOT NULL)");
    }
    ThreadTransactions tx = new ThreadTransactions(ds);
    AtomicLong handlerRuns = new AtomicLong();
    AtomicLong commits = new AtomicLong();
    AtomicLong steps = new AtomicLong();
    try (OnceOnly once = OnceOnly.builder().dataSource(ds).currentTransaction(tx).build();
        OnceOnly own =
            OnceOnly.builder()
                .sqlite(file)
                .listener(
                    e -> {
                      if (e instanceof OnceOnlyEvent.GroupCommitted g) {
                        commits.incrementAndGet();
                        steps.addAndGet(g.steps());
                      }
                    })
                .build()) {
      // The plain mode on the store's own connection (group commit), as an application opens it.
      IdempotencyFilter plain =
          IdempotencyFilter.builder(own)
              .route(Route.builder("plain").path("/plain").build())
              .route(Route.builder("queued").path("/queued/plain").build())
              .scope(ScopeResolver.fixed("bench"))
              .replayCacheBytes(replayCacheBytes)
              .build();
      IdempotencyFilter transactional =
          IdempotencyFilter.builder(once)
              .route(Route.builder("tx").path("/tx").build())
              .scope(ScopeResolver.fixed("bench"))
              .transactional(tx)
              .build();
      Server server = new Server(0);
      ServletContextHandler context = new ServletContextHandler();
      context.addFilter(new FilterHolder(plain), "/*", EnumSet.of(DispatcherType.REQUEST));
      context.addFilter(new FilterHolder(transactional), "/*", EnumSet.of(DispatcherType.REQUEST));
      context.addServlet(new ServletHolder(new Handler(tx, own, handlerRuns)), "/*");
      server.setHandler(context);
      server.start();
      try {
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        Run r = drive(target, port, seconds, clients, handlerRuns, ds);
        own.events().drain(java.time.Duration.ofSeconds(5));
        r = new Run(r.rate, r.answers, r.handlerRuns, r.rows, r.load, commits.get(), steps.get());
        System.out.printf(
            Locale.ROOT,
            "         store commits per answer %.2f, steps per store commit %.2f%n",
            (double) r.commits / Math.max(1, r.answers),
            (double) r.steps / Math.max(1, r.commits));
        return r;
      } finally {
        server.stop();
        tx.close();
      }
    } finally {
      hikari.close();
    }
  }

  static Run drive(
      Path_ target, int port, int seconds, int clients, AtomicLong handlerRuns, DataSource ds)
      throws Exception {
    HttpClient client =
        jdkClient ? HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build() : null;
    URI uri = URI.create("http://localhost:" + port + target.path);
    String fixedKey = "replay-" + UUID.randomUUID();
    if (target == Path_.REPLAY) {
      try (Sender first = sender(client, uri)) {
        first.send(fixedKey); // the stored response every later request gets
      }
    }
    String load = load();
    long jit = jitMillis();
    long retriedBefore = CLIENT_RETRIES.get();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong answers = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    List<Future<?>> running = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < clients; i++) {
      running.add(
          pool.submit(
              () -> {
                try (Sender sender = sender(client, uri)) {
                  while (!stop.get()) {
                    String key = target == Path_.REPLAY ? fixedKey : UUID.randomUUID().toString();
                    int status = sender.send(key);
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
    pool.shutdown();
    long rows;
    try (Connection c = ds.getConnection();
        ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM payments")) {
      rs.next();
      rows = rs.getLong(1);
    }
    Run r = new Run(answers.get() / elapsed, answers.get(), handlerRuns.get(), rows, load, 0, 0);
    long retried = CLIENT_RETRIES.get() - retriedBefore;
    System.out.printf(
        Locale.ROOT,
        "%-8s %8.0f req/s  answers=%d handler runs=%d rows=%d load %s, JIT %d ms%s%n",
        target,
        r.rate,
        r.answers,
        r.handlerRuns,
        r.rows,
        load,
        jitMillis() - jit,
        retried == 0 ? "" : ", sent again on a new connection: " + retried);
    return r;
  }

  /** One client thread's way of sending the bench's request. */
  interface Sender extends AutoCloseable {
    /** Sends the request under {@code key}; returns the answer's status. */
    int send(String key) throws Exception;

    @Override
    default void close() {}
  }

  /** {@code client=raw} (the default: {@link RawHttpClient}) or {@code client=jdk}. */
  private static boolean jdkClient;

  private static final byte[] BODY = "{\"amount\": 1250}".getBytes(StandardCharsets.UTF_8);

  static Sender sender(HttpClient client, URI uri) {
    if (jdkClient) {
      return key -> send(client, uri, key);
    }
    RawHttpClient raw = new RawHttpClient(uri.getHost(), uri.getPort());
    return new Sender() {
      @Override
      public int send(String key) throws Exception {
        return raw.post(
            uri.getPath(),
            BODY,
            CLIENT_RETRIES::incrementAndGet,
            "Content-Type",
            "application/json",
            IdempotencyFilter.KEY_HEADER,
            key);
      }

      @Override
      public void close() {
        raw.close();
      }
    };
  }

  static int send(HttpClient client, URI uri, String key) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .header("Content-Type", "application/json")
            .header(IdempotencyFilter.KEY_HEADER, key)
            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\": 1250}"))
            .build();
    try {
      return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("header parser received no bytes")) {
        throw e;
      }
      // JDK-8338569 (fixed in JDK 24): java.net.http's HTTP/1.1 pool may hand out a connection
      // whose idle watcher still reads, and it takes the answer for unexpected data and closes the
      // connection. Above about 10,000 requests a second on two cores, a 3-second run meets it.
      // The request may have been handled; sent again under its key, the filter answers for it,
      // and the bare endpoint's extra row is counted as a handler run like any other.
      CLIENT_RETRIES.incrementAndGet();
      return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }
  }

  /** Requests sent again after the JDK client's lost-answer race (JDK-8338569). */
  static final AtomicLong CLIENT_RETRIES = new AtomicLong();

  /** The handler: one row, in the filter's transaction if it gave one, else in its own. */
  static final class Handler extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient ThreadTransactions tx;
    private final transient OnceOnly store;
    private final transient AtomicLong runs;

    Handler(ThreadTransactions tx, OnceOnly store, AtomicLong runs) {
      this.tx = tx;
      this.store = store;
      this.runs = runs;
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
      req.getInputStream().readAllBytes();
      String id = UUID.randomUUID().toString();
      try {
        if (req.getRequestURI().startsWith("/queued/")) {
          store.inTransaction(c -> insert(c, id)); // the store's write queue, no second writer
        } else if (tx.connection() != null) {
          insert(tx.connection(), id);
        } else {
          tx.inTransaction(() -> insert(tx.connection(), id));
        }
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
