package dev.onceonly.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Delivery;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mounting example of docs/dashboard.md, as it is: on a Jetty with no login, no request is in
 * the role, so the pages show without forms and a POST is refused with the dead letter left alone.
 */
class DashboardDocsExampleTest {
  @TempDir Path dir;

  @Test
  void theServletMountedAsTheDocsShowOnlyLetsTheRoleAct() throws Exception {
    try (OnceOnly once = OnceOnly.openSqlite(dir.resolve("app.db"))) {
      once.queue().send("reports", "r-1", Map.of());
      for (Delivery d : once.queue().receive("reports", 1, Duration.ofMinutes(1))) {
        once.queue().deadLetter(d.lease(), "disk full");
      }
      Server server = new Server();
      ServerConnector connector = new ServerConnector(server);
      connector.setHost("127.0.0.1");
      server.addConnector(connector);
      ServletContextHandler context = new ServletContextHandler();

      DashboardServlet dashboard =
          DashboardServlet.builder(once)
              .mayAct(req -> req.isUserInRole("onceonly-admin")) // who may act; others only see
              .build();
      context.addServlet(new ServletHolder(dashboard), "/onceonly/*");

      server.setHandler(context);
      server.start();
      try {
        String base = "http://127.0.0.1:" + connector.getLocalPort() + "/onceonly";
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> page =
            client.send(
                HttpRequest.newBuilder(URI.create(base + "/dead-letters")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.body()).contains("r-1", "read-only").doesNotContain("method=\"post\"");
        HttpResponse<String> post =
            client.send(
                HttpRequest.newBuilder(URI.create(base + "/dead-letters/requeue"))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString("queue=reports&key=r-1"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(403);
        assertThat(once.queue().findDeadLetter("reports", "r-1")).isPresent();
      } finally {
        server.stop();
      }
    }
  }
}
