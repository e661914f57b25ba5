package dev.onceonly.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import java.net.CookieManager;
import java.net.HttpCookie;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CSRF value is bound to the session it was given to: on a real Jetty, with real HTTP clients
 * that keep cookies like browsers, the form value and every cookie of session A, planted in session
 * B (as a page on another port of the same host can plant cookies), are refused in B and delete
 * nothing; B's own value is accepted. Once with an access token (each browser's own dashboard
 * session) and once behind a container's login session.
 */
class DashboardCsrfSessionTest {
  private static final String TOKEN = "t".repeat(43);
  @TempDir Path dir;
  private OnceOnly once;
  private Server server;
  private int port;

  @BeforeEach
  void open() {
    once = OnceOnly.openSqlite(dir.resolve("app.db"));
    once.queue().send("reports", "r-1", Map.of("n", 1));
    for (Delivery d : once.queue().receive("reports", 1, Duration.ofSeconds(30))) {
      once.queue().deadLetter(d.lease(), "disk-full");
    }
  }

  @AfterEach
  void close() throws Exception {
    if (server != null) {
      server.stop();
    }
    once.close();
  }

  private void serve(DashboardServlet servlet, boolean containerSessions) throws Exception {
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    server.addConnector(connector);
    ServletContextHandler context =
        new ServletContextHandler(containerSessions ? ServletContextHandler.SESSIONS : 0);
    if (containerSessions) {
      // a stand-in for the host's login: every request belongs to a container session
      Filter login =
          (req, res, chain) -> {
            ((HttpServletRequest) req).getSession(true);
            chain.doFilter(req, res);
          };
      context.addFilter(new FilterHolder(login), "/*", EnumSet.of(DispatcherType.REQUEST));
    }
    context.addServlet(new ServletHolder(servlet), "/ops/*");
    server.setHandler(context);
    server.start();
    port = connector.getLocalPort();
  }

  /** A browser: its own cookies, no redirects followed. */
  private final class Browser {
    final CookieManager cookies = new CookieManager();
    final HttpClient client =
        HttpClient.newBuilder()
            .cookieHandler(cookies)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    HttpResponse<String> get(String path) throws Exception {
      return client.send(
          HttpRequest.newBuilder(uri(path)).GET().build(),
          HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    HttpResponse<String> post(String path, Map<String, String> fields) throws Exception {
      String body =
          fields.entrySet().stream()
              .map(
                  f ->
                      URLEncoder.encode(f.getKey(), StandardCharsets.UTF_8)
                          + "="
                          + URLEncoder.encode(f.getValue(), StandardCharsets.UTF_8))
              .collect(Collectors.joining("&"));
      return client.send(
          HttpRequest.newBuilder(uri(path))
              .header("Content-Type", "application/x-www-form-urlencoded")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build(),
          HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    List<HttpCookie> all() {
      return List.copyOf(cookies.getCookieStore().getCookies());
    }

    /** Plants a cookie of another session over this browser's cookie of the same name. */
    void plant(HttpCookie other) {
      for (HttpCookie mine : all()) {
        if (mine.getName().equals(other.getName())) {
          cookies.getCookieStore().remove(null, mine);
          cookies.getCookieStore().getURIs().forEach(u -> cookies.getCookieStore().remove(u, mine));
        }
      }
      HttpCookie planted = new HttpCookie(other.getName(), other.getValue());
      planted.setPath("/ops");
      planted.setVersion(0);
      cookies.getCookieStore().add(uri("/"), planted);
    }
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + "/ops" + path);
  }

  private Map<String, String> deleteForm(Browser b) throws Exception {
    HttpResponse<String> page = b.get("/dead-letter?queue=reports&key=r-1");
    assertThat(page.statusCode()).isEqualTo(200);
    return new LinkedHashMap<>(DashboardServer.formOf(page.body(), "/dead-letters/delete"));
  }

  private void aPairOfSessionAIsRefusedInSessionB(Browser a, Browser b) throws Exception {
    Map<String, String> fromA = deleteForm(a);
    deleteForm(b); // B has a session and cookies of its own
    for (HttpCookie c : a.all()) {
      // every cookie but the one that names the session itself: planting that one would make B
      // session A, acting as A (whoever can plant it holds A's session already)
      if (!c.getName().equals(Guard.TOKEN_COOKIE) && !c.getName().equals("JSESSIONID")) {
        b.plant(c);
      }
    }
    HttpResponse<String> forged = b.post("/dead-letters/delete", fromA);
    assertThat(forged.statusCode()).isEqualTo(403);
    assertThat(forged.body()).contains("CSRF");
    assertThat(once.queue().findDeadLetter("reports", "r-1")).isPresent();

    Browser c = new Browser();
    enter(c);
    HttpResponse<String> own = c.post("/dead-letters/delete", deleteForm(c));
    assertThat(own.statusCode()).isEqualTo(200);
    assertThat(once.queue().findDeadLetter("reports", "r-1")).isEqualTo(Optional.empty());
  }

  private boolean tokens;

  private void enter(Browser b) throws Exception {
    if (tokens) {
      assertThat(b.get("/?token=" + TOKEN).statusCode()).isEqualTo(303);
    }
  }

  @Test
  void withAnAccessTokenEachBrowserHasItsOwnSession() throws Exception {
    tokens = true;
    serve(DashboardServlet.builder(once).accessToken(TOKEN).build(), false);
    Browser a = new Browser();
    Browser b = new Browser();
    enter(a);
    enter(b);
    aPairOfSessionAIsRefusedInSessionB(a, b);
  }

  @Test
  void behindAContainerLoginTheValueIsBoundToItsSession() throws Exception {
    serve(DashboardServlet.builder(once).build(), true);
    aPairOfSessionAIsRefusedInSessionB(new Browser(), new Browser());
  }

  @Test
  void aSessionCookieNotSignedByThisDashboardIsNotAdmitted() throws Exception {
    serve(DashboardServlet.builder(once).accessToken(TOKEN).build(), false);
    Browser b = new Browser();
    b.plant(new HttpCookie(Guard.TOKEN_COOKIE, "x".repeat(43) + "." + "y".repeat(43)));
    assertThat(b.get("/").statusCode()).isEqualTo(401);
  }
}
