package dev.onceonly.bench;

import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * How long the dashboard's overview takes to render over HTTP on a SQLite store of many messages,
 * against the peer an operator would otherwise run: one raw JDBC {@code SELECT queue, COUNT(*) ...
 * GROUP BY queue} on the same file. The messages (four queues; half due, a quarter leased, a
 * quarter delayed) are written as fixtures in one transaction. Runs interleave A B B A; the load
 * average ({@code /proc/loadavg}) is printed with each round, and the figure is the median of each
 * side and their ratio.
 *
 * <p>With {@code page=queue}, the page measured is one queue's ({@code /queues?queue=queue-a}: its
 * counts by priority and partition and its first page of messages) and the peer is one raw {@code
 * SELECT priority, COUNT(*) ... WHERE queue = 'queue-a' GROUP BY priority}.
 *
 * <p>With {@code queues=20000}, the messages are spread over that many queues; with {@code
 * dead=10000}, that many dead letters are added over the same queues; {@code page=queues} measures
 * the Queues page ({@code /queues}, its first page of the deepest queues).
 *
 * <p>Run: {@code mvn -B -Pbench test-compile exec:exec
 * -Dbench.main=dev.onceonly.bench.DashboardBenchMain -Dbench.args="n=1000000 rounds=5"}.
 */
public final class DashboardBenchMain {
  private DashboardBenchMain() {}

  public static void main(String[] args) throws Exception {
    int n = 1_000_000;
    int rounds = 5;
    boolean queuePage = false;
    boolean queuesPage = false;
    int queues = 0;
    int dead = 0;
    for (String a : args) {
      if (a.startsWith("n=")) {
        n = Integer.parseInt(a.substring(2));
      } else if (a.startsWith("rounds=")) {
        rounds = Integer.parseInt(a.substring(7));
      } else if (a.equals("page=queue")) {
        queuePage = true;
      } else if (a.equals("page=queues")) {
        queuesPage = true;
      } else if (a.startsWith("queues=")) {
        queues = Integer.parseInt(a.substring(7));
      } else if (a.startsWith("dead=")) {
        dead = Integer.parseInt(a.substring(5));
      }
    }
    Path dir = Files.createTempDirectory("dashboard-bench");
    Path file = dir.resolve("bench.db");
    String url = "jdbc:sqlite:" + file;
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      long t0 = System.nanoTime();
      fill(url, n, queues, dead, once);
      System.out.printf(
          Locale.ROOT, "filled %,d messages in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);
      Server server = new Server();
      ServerConnector connector = new ServerConnector(server);
      connector.setHost("127.0.0.1");
      server.addConnector(connector);
      ServletContextHandler context = new ServletContextHandler();
      context.addServlet(
          new ServletHolder(DashboardServlet.builder(once).readOnly(true).build()), "/ops/*");
      server.setHandler(context);
      server.start();
      try (Connection raw = DriverManager.getConnection(url)) {
        HttpClient client = HttpClient.newHttpClient();
        String path =
            queuePage ? "/ops/queues?queue=queue-a" : queuesPage ? "/ops/queues" : "/ops/";
        URI overview = URI.create("http://127.0.0.1:" + connector.getLocalPort() + path);
        String expect = queuePage ? "By priority" : queuesPage ? "the deepest first" : "Overview";
        String peerSql =
            queuePage
                ? "SELECT priority, COUNT(*) FROM onceonly_messages WHERE queue = 'queue-a'"
                    + " GROUP BY priority"
                : "SELECT queue, COUNT(*) FROM onceonly_messages GROUP BY queue";
        List<Double> page = new ArrayList<>();
        List<Double> peer = new ArrayList<>();
        overview(client, overview, expect); // warm-up of both sides
        peer(raw, peerSql);
        for (int r = 0; r < rounds; r++) {
          page.add(overview(client, overview, expect));
          peer.add(peer(raw, peerSql));
          peer.add(peer(raw, peerSql));
          page.add(overview(client, overview, expect));
          System.out.printf(
              Locale.ROOT,
              "round %d: page %.1f ms, %.1f ms; peer %.1f ms, %.1f ms; load %s%n",
              r + 1,
              page.get(page.size() - 2),
              page.get(page.size() - 1),
              peer.get(peer.size() - 2),
              peer.get(peer.size() - 1),
              Files.readString(Path.of("/proc/loadavg")).trim());
        }
        double p = median(page);
        double q = median(peer);
        System.out.printf(
            Locale.ROOT,
            "%,d messages: %s median %.1f ms, raw GROUP BY count median %.1f ms, ratio %.2f%n",
            n,
            path,
            p,
            q,
            p / q);
      } finally {
        server.stop();
      }
    }
  }

  private static void fill(String url, int n, int queues, int dead, OnceOnly once)
      throws Exception {
    long now = System.currentTimeMillis();
    try (Connection c = DriverManager.getConnection(url)) {
      c.setAutoCommit(false);
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO onceonly_messages (queue, message_key, fingerprint, payload, deliver_at,"
                  + " leased, created_at) VALUES (?, ?, 'bench', '{}', ?, ?, ?)")) {
        for (int i = 0; i < n; i++) {
          int kind = i % 4;
          ps.setString(
              1,
              queues > 0
                  ? "queue-" + (i % queues)
                  : "queue-" + (i % 4 == 0 ? "a" : i % 3 == 0 ? "b" : i % 2 == 0 ? "c" : "d"));
          ps.setString(2, "m-" + i);
          ps.setLong(3, kind < 2 ? now - 1_000 : now + 3_600_000);
          ps.setInt(4, kind == 2 ? 1 : 0);
          ps.setLong(5, now);
          ps.addBatch();
          if (i % 10_000 == 9_999) {
            ps.executeBatch();
          }
        }
        ps.executeBatch();
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO onceonly_dead_letters (queue, message_key, fingerprint, payload,"
                  + " attempts, last_error, created_at, dead_at) VALUES (?, ?, 'bench', '{}', 3,"
                  + " 'bench', ?, ?)")) {
        for (int i = 0; i < dead; i++) {
          ps.setString(1, "queue-" + (i % Math.max(1, queues)));
          ps.setString(2, "d-" + i);
          ps.setLong(3, now);
          ps.setLong(4, now - i);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      c.commit();
    }
    System.out.println(
        "queues counted by the store: " + once.maintenance().status().messages().size());
  }

  private static double overview(HttpClient client, URI uri, String expect) throws Exception {
    long t = System.nanoTime();
    HttpResponse<String> r =
        client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    double ms = (System.nanoTime() - t) / 1e6;
    if (r.statusCode() != 200 || !r.body().contains(expect)) {
      throw new IllegalStateException(uri + " answered " + r.statusCode());
    }
    return ms;
  }

  private static double peer(Connection raw, String sql) throws Exception {
    long t = System.nanoTime();
    long total = 0;
    try (Statement s = raw.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        total += rs.getLong(2);
      }
    }
    if (total == 0) {
      throw new IllegalStateException("the peer counted no message");
    }
    return (System.nanoTime() - t) / 1e6;
  }

  private static double median(List<Double> xs) {
    List<Double> sorted = new ArrayList<>(xs);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
