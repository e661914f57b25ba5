package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.SqliteContractDatabase;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.CookieManager;
import java.net.HttpCookie;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded Jetty of {@code onceonly dashboard} as a stranger on the wire sees it: raw requests
 * on a socket to the real server, with the cookies a browser that opened the printed URL holds.
 * Only the methods the dashboard uses are served; every answer, Jetty's own error pages included,
 * carries the dashboard's security headers and names no server version.
 */
class DashboardHttpTest {
  private static final Pattern URL =
      Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)/\\?token=([A-Za-z0-9_-]{43})");
  private static final List<String> SECURITY_HEADERS =
      List.of(
          "content-security-policy",
          "x-content-type-options",
          "referrer-policy",
          "x-frame-options",
          "cache-control");

  @TempDir Path dir;

  private SqliteContractDatabase store;
  private DashboardRun dashboard;
  private int port;
  private String cookies;

  @BeforeEach
  void start() throws Exception {
    store = SqliteContractDatabase.in(Files.createDirectory(dir.resolve("db")));
    CommandsContract.prepare(store, "onceonly_");
    List<String> args = new ArrayList<>(List.of("dashboard"));
    args.addAll(List.of(CommandsContract.target(store)));
    args.addAll(List.of("--port", "0"));
    dashboard = new DashboardRun(URL, args.toArray(String[]::new));
    port = URI.create(dashboard.url).getPort();
    CookieManager jar = new CookieManager();
    HttpClient browser =
        HttpClient.newBuilder()
            .cookieHandler(jar)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    DashboardCommandContract.get(browser, dashboard.url);
    List<HttpCookie> held = jar.getCookieStore().getCookies();
    assertThat(held).as("the access token's cookie").hasSize(1);
    // and a CSRF cookie, as a dashboard without an access token sets one
    cookies =
        held.get(0).getName()
            + "="
            + held.get(0).getValue()
            + "; oo_dashboard_csrf="
            + "C".repeat(43);
  }

  @AfterEach
  void stop() throws Exception {
    assertThat(dashboard.stop()).isZero();
  }

  @Test
  void theCookiesStillOpenThePages() throws Exception {
    Answer page = send("GET /dead-letters HTTP/1.1\r\nHost: x\r\nCookie: " + cookies + "\r\n");
    assertThat(page.status).as(page.raw).isEqualTo(200);
    assertThat(page.body).contains("m-1");
    assertSafe(page);
    Answer head = send("HEAD / HTTP/1.1\r\nHost: x\r\nCookie: " + cookies + "\r\n");
    assertThat(head.status).as(head.raw).isEqualTo(200);
    assertThat(head.body).isEmpty();
  }

  @Test
  void traceIsRefusedAndEchoesNoCookie() throws Exception {
    Answer trace = send("TRACE / HTTP/1.1\r\nHost: x\r\nCookie: " + cookies + "\r\n");
    assertThat(trace.status).as(trace.raw).isEqualTo(405);
    for (String cookie : cookies.split("; ")) {
      assertThat(trace.raw).doesNotContain(cookie.substring(cookie.indexOf('=') + 1));
    }
    assertThat(trace.headers.get("allow")).isEqualTo("GET, HEAD, POST");
    assertSafe(trace);
  }

  @Test
  void everyMethodTheDashboardDoesNotUseIsRefused() throws Exception {
    for (String method : List.of("OPTIONS", "PUT", "DELETE", "PATCH", "PROPFIND", "BREW")) {
      Answer a = send(method + " / HTTP/1.1\r\nHost: x\r\nCookie: " + cookies + "\r\n");
      assertThat(a.status).as("%s: %s", method, a.raw).isEqualTo(405);
      assertThat(a.headers.get("allow")).isEqualTo("GET, HEAD, POST");
      assertSafe(a);
    }
    // Jetty refuses these as malformed before any handler sees them, with the same headers
    for (String odd : List.of("CONNECT 127.0.0.1:" + port, "OPTIONS *")) {
      Answer a = send(odd + " HTTP/1.1\r\nHost: x\r\nCookie: " + cookies + "\r\n");
      assertThat(a.status).as("%s: %s", odd, a.raw).isIn(400, 405);
      assertSafe(a);
    }
  }

  @Test
  void jettysOwnErrorPagesCarryTheHeadersAndNoVersion() throws Exception {
    List<String> malformed =
        List.of(
            "GET /%zz HTTP/1.1\r\nHost: x\r\n",
            "GET /a/%2e%2e/%2e%2e/etc HTTP/1.1\r\nHost: x\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(64 * 1024) + "\r\n",
            "GET /" + "a".repeat(64 * 1024) + " HTTP/1.1\r\nHost: x\r\n");
    for (String request : malformed) {
      Answer a = send(request);
      assertThat(a.status).as(a.raw).isBetween(400, 499);
      assertSafe(a);
    }
    Answer missing = send("GET /no-such-page HTTP/1.1\r\nHost: x\r\nCookie: " + cookies + "\r\n");
    assertThat(missing.status).as(missing.raw).isEqualTo(404);
    assertSafe(missing);
  }

  private static void assertSafe(Answer a) {
    for (String h : SECURITY_HEADERS) {
      assertThat(a.headers).as("%s in %s", h, a.raw).containsKey(h);
    }
    assertThat(a.headers).as(a.raw).doesNotContainKeys("server", "x-powered-by");
    assertThat(a.raw.toLowerCase(Locale.ROOT)).as(a.raw).doesNotContain("jetty");
    assertThat(a.raw).as(a.raw).doesNotContain("12.1.");
  }

  private Answer send(String head) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write((head + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      try {
        // until the answer is whole, not until the server closes: an answer that keeps the
        // connection open despite "Connection: close" would otherwise cost the idle timeout
        for (int n; !whole(all.toString(StandardCharsets.ISO_8859_1)) && (n = in.read(buf)) > 0; ) {
          all.write(buf, 0, n);
        }
      } catch (java.net.SocketException reset) {
        // the server may close a malformed request's connection before reading all of it
      }
      return Answer.of(all.toString(StandardCharsets.ISO_8859_1));
    }
  }

  /** Whether {@code raw} holds a whole answer: its head and the body its head announces. */
  private static boolean whole(String raw) {
    int end = raw.indexOf("\r\n\r\n");
    if (end < 0) {
      return false;
    }
    String head = raw.substring(0, end).toLowerCase(Locale.ROOT);
    String body = raw.substring(end + 4);
    if (head.contains("\r\ntransfer-encoding: chunked")) {
      return body.endsWith("0\r\n\r\n");
    }
    java.util.regex.Matcher length =
        java.util.regex.Pattern.compile("\r\ncontent-length: *(\\d+)").matcher(head);
    return length.find() && body.length() >= Integer.parseInt(length.group(1));
  }

  /** One raw HTTP answer. */
  private record Answer(String raw, int status, Map<String, String> headers, String body) {
    static Answer of(String raw) {
      int end = raw.indexOf("\r\n\r\n");
      assertThat(end).as("a whole head in: %s", raw).isPositive();
      String[] lines = raw.substring(0, end).split("\r\n");
      int status = Integer.parseInt(lines[0].split(" ")[1]);
      Map<String, String> headers = new LinkedHashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        headers.put(
            lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
            lines[i].substring(colon + 1).trim());
      }
      return new Answer(raw, status, headers, raw.substring(end + 4));
    }
  }
}
