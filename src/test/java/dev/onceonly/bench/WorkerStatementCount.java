package dev.onceonly.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.EmbeddedPg;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Counts the JDBC calls that reach the PostgreSQL driver while a {@link Worker} drains a queue: the
 * statements executed (each one round trip to the server; a JDBC batch counts once) and the
 * commits, per job, by SQL text. The library is built on a data source whose connections count what
 * passes through them; nothing in the library is changed.
 *
 * <p>Run: {@code mvn -B -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.WorkerStatementCount -Dbench.args="n=4000 threads=8"}; {@code
 * later} hands the row to {@code completeLater} instead of writing it in {@code completeWith}.
 */
public final class WorkerStatementCount {
  private WorkerStatementCount() {}

  /** Executions by SQL text, and the commits and rollbacks, of every connection handed out. */
  static final class Counts {
    final Map<String, LongAdder> executed = new ConcurrentHashMap<>();
    final LongAdder commits = new LongAdder();
    final LongAdder rollbacks = new LongAdder();

    void executed(String sql) {
      executed.computeIfAbsent(sql, k -> new LongAdder()).increment();
    }

    long statements() {
      return executed.values().stream().mapToLong(LongAdder::sum).sum();
    }

    void reset() {
      executed.clear();
      commits.reset();
      rollbacks.reset();
    }
  }

  /** A data source whose connections count their executions and commits into {@code counts}. */
  static DataSource counting(DataSource target, Counts counts) {
    return (DataSource)
        Proxy.newProxyInstance(
            WorkerStatementCount.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, m, args) -> {
              Object r = invoke(target, m, args);
              return r instanceof Connection c ? connection(c, counts) : r;
            });
  }

  private static Connection connection(Connection target, Counts counts) {
    InvocationHandler h =
        (proxy, m, args) -> {
          switch (m.getName()) {
            case "commit" -> counts.commits.increment();
            case "rollback" -> counts.rollbacks.increment();
            default -> {}
          }
          Object r = invoke(target, m, args);
          if (r instanceof PreparedStatement ps) {
            return statement(ps, PreparedStatement.class, (String) args[0], counts);
          }
          if (r instanceof Statement s) {
            return statement(s, Statement.class, null, counts);
          }
          return r;
        };
    return (Connection)
        Proxy.newProxyInstance(
            WorkerStatementCount.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
  }

  private static Object statement(Statement target, Class<?> type, String sql, Counts counts) {
    InvocationHandler h =
        (proxy, m, args) -> {
          if (m.getName().startsWith("execute")) {
            counts.executed(sql != null ? sql : args != null ? (String) args[0] : "?");
          }
          return invoke(target, m, args);
        };
    return Proxy.newProxyInstance(
        WorkerStatementCount.class.getClassLoader(), new Class<?>[] {type}, h);
  }

  private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  public static void main(String[] args) throws Exception {
    int n = 4000;
    int threads = 8;
    boolean later = false;
    for (String a : args) {
      if (a.startsWith("n=")) {
        n = Integer.parseInt(a.substring(2));
      } else if (a.startsWith("threads=")) {
        threads = Integer.parseInt(a.substring(8));
      } else if (a.equals("later")) {
        later = true;
      }
    }
    Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
    String db = EmbeddedPg.newDatabase("count");
    Counts counts = new Counts();
    try (HikariDataSource pool = EmbeddedPg.pool(db, threads + 8)) {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE done (job_key TEXT PRIMARY KEY)");
      }
      try (OnceOnly once = OnceOnly.builder().dataSource(counting(pool, counts)).build()) {
        List<Message> chunk = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          chunk.add(Message.of("jobs", "j" + i, Map.of("key", "j" + i)));
          if (chunk.size() == 1000 || i == n - 1) {
            once.queue().sendAll(chunk);
            chunk.clear();
          }
        }
        counts.reset();
        CountDownLatch done = new CountDownLatch(n);
        boolean completeLater = later;
        Worker worker =
            Worker.builder(
                    once.queue(),
                    "jobs",
                    job -> {
                      String key = job.delivery().key();
                      if (completeLater) {
                        job.completeLater(c -> insert(c, key));
                        done.countDown();
                      } else if (job.completeWith(c -> insert(c, key))
                          instanceof QueueResult.Completed) {
                        done.countDown();
                      }
                    })
                .threads(threads)
                .build()
                .start();
        long started = System.nanoTime();
        if (!done.await(5, TimeUnit.MINUTES)) {
          throw new IllegalStateException(done.getCount() + " jobs not done");
        }
        worker.close();
        double seconds = (System.nanoTime() - started) / 1e9;
        report(counts, n, threads, completeLater, seconds, rows(pool));
      }
    }
  }

  private static Void insert(Connection c, String key) throws SQLException {
    WorkerBenchStore.insertDone(c, key);
    return null;
  }

  private static long rows(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM done")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void report(
      Counts counts, int n, int threads, boolean later, double seconds, long rows) {
    PrintWriter out = new PrintWriter(System.out, true);
    out.printf(
        Locale.ROOT,
        "%d jobs (%d rows in done), %d threads, %s, %.2f s: %.2f statements and %.3f commits per"
            + " job (%d statements, %d commits, %d rollbacks)%n",
        n,
        rows,
        threads,
        later ? "completeLater" : "completeWith",
        seconds,
        counts.statements() / (double) n,
        counts.commits.sum() / (double) n,
        counts.statements(),
        counts.commits.sum(),
        counts.rollbacks.sum());
    counts.executed.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
        .forEach(
            e ->
                out.printf(
                    Locale.ROOT,
                    "  %8.3f per job  %s%n",
                    e.getValue().sum() / (double) n,
                    e.getKey().length() > 150 ? e.getKey().substring(0, 150) + "..." : e.getKey()));
  }
}
