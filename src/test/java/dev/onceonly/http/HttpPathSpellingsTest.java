package dev.onceonly.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.external.ClaimState;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The filter guards every spelling of a path that the container sends to the guarded handler: path
 * parameters, dot segments, percent-encoded letters in either hex case, doubled and trailing
 * slashes, and their combinations, generated. The reference is the container itself: a GET (which
 * no route guards) tells which servlet each spelling reaches; for every spelling that reaches the
 * guarded servlet, a keyless POST on a route that requires a key is refused and the handler does
 * not run, and one key runs the handler once across all spellings. On Jetty 12 and on Tomcat 10.1
 * (Spring Boot 3.5's).
 */
class HttpPathSpellingsTest {
  static final String JSON = "{\"amount\":1250}";

  @TempDir Path dir;

  /** The guarded servlet's runs, per path the container dispatched to it. */
  final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"jetty", "tomcat"})
  void everySpellingTheContainerDispatchesToTheHandlerIsGuarded(String container) throws Exception {
    List<String> keys = new ArrayList<>();
    try (OnceOnly once = OnceOnly.openSqlite(dir.resolve("api.db"));
        Container server = start(container, filter(once))) {
      Random random = new Random(20261202L);
      for (String base : List.of("/payments", "/orders/7")) {
        List<String> guarded = new ArrayList<>();
        Map<String, List<String>> byDispatchedPath = new TreeMap<>();
        for (String spelling : spellings(base, random)) {
          HttpResponse<String> probe = server.send(spelling, "GET", null);
          assertThat(probe.statusCode()).as(spelling).isIn(200, 400, 404);
          if ("guarded".equals(probe.headers().firstValue("X-Handler").orElse(""))) {
            assertThat(probe.body()).as("sent as written").isEqualTo(spelling);
            guarded.add(spelling);
            byDispatchedPath
                .computeIfAbsent(
                    probe.headers().firstValue("X-Dispatched").orElseThrow(),
                    p -> new ArrayList<>())
                .add(spelling);
          }
        }
        assertThat(guarded).as("spellings the container sends to " + base).hasSizeGreaterThan(20);

        for (String spelling : guarded) {
          HttpResponse<String> keyless = server.send(spelling, "POST", null);
          assertThat(keyless.statusCode()).as("no key: " + spelling).isEqualTo(400);
          assertThat(keyless.body()).contains("key-missing");
        }
        assertThat(runs.keySet())
            .as("runs without a key")
            .doesNotContainAnyElementsOf(byDispatchedPath.keySet());

        // One key per path the container dispatched to ("/orders/7/" is not "/orders/7" to the
        // handler), sent in every spelling that reached it.
        for (Map.Entry<String, List<String>> e : byDispatchedPath.entrySet()) {
          String key = "key-" + keys.size();
          keys.add(key);
          for (String spelling : e.getValue()) {
            HttpResponse<String> r = server.send(spelling, "POST", key);
            assertThat(r.statusCode()).as(spelling + ": " + r.body()).isEqualTo(201);
          }
          assertThat(runs.get(e.getKey())).as("runs of one key across " + e.getValue()).hasValue(1);
        }
      }
    }
    try (OnceOnly reopened = OnceOnly.openSqlite(dir.resolve("api.db"))) {
      for (String key : keys) {
        assertThat(
                reopened.externalEffects().find(IntentKey.of("public", key)).orElseThrow().state())
            .isEqualTo(ClaimState.COMPLETED);
      }
    }
  }

  static IdempotencyFilter filter(OnceOnly once) {
    return IdempotencyFilter.builder(once)
        .route(Route.builder("payments").path("/payments").keyRequired(true).build())
        .route(Route.builder("orders").path("/orders/*").keyRequired(true).build())
        .scope(ScopeResolver.fixed("public"))
        .build();
  }

  /**
   * Spellings of {@code base}: each segment may get percent-encoded letters (either hex case) and
   * path parameters; dot segments, doubled slashes and a trailing slash may come between.
   */
  static Set<String> spellings(String base, Random random) {
    String[] segments = base.substring(1).split("/");
    Set<String> out = new LinkedHashSet<>();
    out.add(base);
    String[] parameters = {";v=1", ";", ";jsessionid=abc", ";a=b;c=d", ";x"};
    String[] between = {"./", "zz/../", "/", "a/b/../../", "./zz/../"};
    while (out.size() < 80) {
      StringBuilder b = new StringBuilder();
      for (String segment : segments) {
        b.append('/');
        if (random.nextInt(4) == 0) {
          b.append(between[random.nextInt(between.length)]);
        }
        for (char c : segment.toCharArray()) {
          if (random.nextInt(4) == 0) {
            String hex = Integer.toHexString(c);
            b.append('%').append(random.nextBoolean() ? hex : hex.toUpperCase(Locale.ROOT));
          } else {
            b.append(c);
          }
        }
        if (random.nextInt(3) == 0) {
          b.append(parameters[random.nextInt(parameters.length)]);
        }
      }
      if (random.nextInt(6) == 0) {
        b.append('/');
      }
      out.add(b.toString());
    }
    return out;
  }

  Container start(String name, Filter filter) throws Exception {
    HttpServlet guarded = new Handler("guarded");
    HttpServlet other = new Handler("other");
    return name.equals("jetty")
        ? new JettyContainer(filter, guarded, other)
        : new TomcatContainer(filter, guarded, other, dir);
  }

  /**
   * Answers a GET with which servlet it is, the path the container dispatched to it and the URI as
   * sent; counts its POSTs per dispatched path.
   */
  final class Handler extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final String name;

    Handler(String name) {
      this.name = name;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse res) throws IOException {
      res.setHeader("X-Handler", name);
      String dispatched =
          req.getServletPath() + (req.getPathInfo() == null ? "" : req.getPathInfo());
      res.setHeader("X-Dispatched", dispatched);
      if (req.getMethod().equals("POST") && name.equals("guarded")) {
        runs.computeIfAbsent(dispatched, b -> new AtomicInteger()).incrementAndGet();
        req.getInputStream().readAllBytes();
        res.setStatus(201);
        res.setContentType("application/json");
        res.getWriter().write("{\"ran\":true}");
        return;
      }
      res.setStatus(name.equals("guarded") ? 200 : 404);
      res.getWriter().write(req.getRequestURI());
    }
  }

  /** A started server with the filter at every path, and the two servlets. */
  abstract static class Container implements AutoCloseable {
    private final HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    abstract int port();

    HttpResponse<String> send(String path, String method, String key)
        throws IOException, InterruptedException {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create("http://localhost:" + port() + path))
              .timeout(Duration.ofSeconds(60))
              .header("Content-Type", "application/json")
              .method(
                  method,
                  method.equals("GET")
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofString(JSON));
      if (key != null) {
        b.header(IdempotencyFilter.KEY_HEADER, key);
      }
      return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  static final class JettyContainer extends Container {
    private final Server server = new Server(0);

    JettyContainer(Filter filter, HttpServlet guarded, HttpServlet other) throws Exception {
      ServletContextHandler context = new ServletContextHandler();
      context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
      ServletHolder holder = new ServletHolder(guarded);
      context.addServlet(holder, "/payments");
      context.addServlet(holder, "/orders/*");
      context.addServlet(new ServletHolder(other), "/");
      server.setHandler(context);
      server.start();
    }

    @Override
    int port() {
      return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    @Override
    public void close() throws Exception {
      server.stop();
    }
  }

  static final class TomcatContainer extends Container {
    private final Tomcat tomcat = new Tomcat();

    TomcatContainer(Filter filter, HttpServlet guarded, HttpServlet other, Path dir)
        throws Exception {
      tomcat.setBaseDir(dir.resolve("tomcat").toString());
      tomcat.setPort(0);
      Context context = tomcat.addContext("", null);
      Tomcat.addServlet(context, "guarded", guarded);
      context.addServletMappingDecoded("/payments", "guarded");
      context.addServletMappingDecoded("/orders/*", "guarded");
      Tomcat.addServlet(context, "other", other);
      context.addServletMappingDecoded("/", "other");
      FilterDef def = new FilterDef();
      def.setFilterName("idempotency");
      def.setFilter(filter);
      context.addFilterDef(def);
      FilterMap map = new FilterMap();
      map.setFilterName("idempotency");
      map.addURLPattern("/*");
      context.addFilterMap(map);
      tomcat.getConnector();
      tomcat.start();
    }

    @Override
    int port() {
      return tomcat.getConnector().getLocalPort();
    }

    @Override
    public void close() throws Exception {
      tomcat.stop();
      tomcat.destroy();
    }
  }
}
