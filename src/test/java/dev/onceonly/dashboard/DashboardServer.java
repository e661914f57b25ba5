package dev.onceonly.dashboard;

import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A dashboard servlet on a real Jetty at {@code /ops/*} of a random port on 127.0.0.1, and a client
 * that keeps cookies like a browser: it reads each page's CSRF value and posts forms with it.
 */
final class DashboardServer implements AutoCloseable {
  static final String PATH = "/ops";
  private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([A-Za-z0-9_-]+)\"");

  private final Server server;
  final int port;
  private final HttpClient client =
      HttpClient.newBuilder()
          .cookieHandler(new CookieManager())
          .followRedirects(HttpClient.Redirect.NEVER)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  DashboardServer(DashboardServlet servlet) throws Exception {
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.addServlet(new ServletHolder(servlet), PATH + "/*");
    server.setHandler(context);
    server.start();
    port = connector.getLocalPort();
  }

  /** {@return the URL of a dashboard path} */
  String url(String path) {
    return "http://127.0.0.1:" + port + PATH + path;
  }

  HttpResponse<String> get(String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url(path))).GET().build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  /** Reads the CSRF value of the page at {@code page}, then posts {@code fields} with it. */
  HttpResponse<String> act(String page, String action, Map<String, String> fields)
      throws Exception {
    Map<String, String> all = new LinkedHashMap<>(fields);
    all.put("csrf", csrfOf(get(page).body()));
    return post(action, all);
  }

  /** Posts {@code fields} as they are, without adding a CSRF value. */
  HttpResponse<String> post(String path, Map<String, String> fields) throws Exception {
    StringBuilder body = new StringBuilder();
    for (Map.Entry<String, String> f : fields.entrySet()) {
      body.append(body.isEmpty() ? "" : "&")
          .append(URLEncoder.encode(f.getKey(), StandardCharsets.UTF_8))
          .append('=')
          .append(URLEncoder.encode(f.getValue(), StandardCharsets.UTF_8));
    }
    return client.send(
        HttpRequest.newBuilder(URI.create(url(path)))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  private static final Pattern FORM =
      Pattern.compile("<form method=\"post\" action=\"[^\"]*?([^\"/]*/[^\"/]*)\">(.*?)</form>");
  private static final Pattern HIDDEN =
      Pattern.compile("<input type=\"hidden\" name=\"([^\"]+)\" value=\"([^\"]*)\">");

  /**
   * Reads the hidden fields of the first form of {@code html} that posts to {@code action} (as a
   * browser would send them: a confirmation page's form holds what the confirmation posts).
   */
  static Map<String, String> formOf(String html, String action) {
    Matcher form = FORM.matcher(html);
    while (form.find()) {
      if (("/" + form.group(1)).equals(action)) {
        Map<String, String> fields = new LinkedHashMap<>();
        Matcher hidden = HIDDEN.matcher(form.group(2));
        while (hidden.find()) {
          fields.put(hidden.group(1), unescape(hidden.group(2)));
        }
        return fields;
      }
    }
    throw new AssertionError("the page has no form posting to " + action + ":\n" + html);
  }

  private static String unescape(String html) {
    return html.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
  }

  static String csrfOf(String html) {
    Matcher m = CSRF.matcher(html);
    if (!m.find()) {
      throw new AssertionError("the page has no CSRF field:\n" + html);
    }
    return m.group(1);
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }
}
