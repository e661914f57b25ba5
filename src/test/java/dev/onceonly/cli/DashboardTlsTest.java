package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.testing.SqliteContractDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code onceonly dashboard} beyond loopback: on every interface it warns, prints a URL a browser
 * elsewhere can use, and serves TLS with a certificate made for the run, which a real TLS client
 * trusting exactly the printed fingerprint reaches, its session cookie {@code Secure}; plain HTTP
 * there only with {@code --insecure-http}, its cookies {@code Secure} when a trusted proxy says the
 * request came over HTTPS. Traffic goes to 127.0.0.1 only.
 */
class DashboardTlsTest {
  private static final Pattern URL =
      Pattern.compile("(https?)://([^/\\s]+):(\\d+)/\\?token=([A-Za-z0-9_-]{43})");
  private static final Pattern FINGERPRINT =
      Pattern.compile("SHA-256 fingerprint: ((?:[0-9A-F]{2}:){31}[0-9A-F]{2})");

  @TempDir Path dir;
  private SqliteContractDatabase store;
  private final List<DashboardRun> running = new ArrayList<>();

  @BeforeEach
  void prepare() throws Exception {
    store = SqliteContractDatabase.in(Files.createDirectory(dir.resolve("db")));
    CommandsContract.prepare(store, "onceonly_");
  }

  @AfterEach
  void stop() throws Exception {
    for (DashboardRun r : running) {
      assertThat(r.stop()).isZero();
    }
  }

  private DashboardRun start(String... more) {
    List<String> args = new ArrayList<>(List.of("dashboard"));
    args.addAll(List.of(CommandsContract.target(store)));
    args.addAll(List.of("--port", "0"));
    args.addAll(List.of(more));
    DashboardRun r = new DashboardRun(URL, args.toArray(String[]::new));
    running.add(r);
    return r;
  }

  /** The printed URL with its host replaced by 127.0.0.1, so that nothing leaves this machine. */
  private static String onLoopback(DashboardRun r) {
    Matcher m = URL.matcher(r.url);
    assertThat(m.matches()).isTrue();
    return m.group(1) + "://127.0.0.1:" + m.group(3) + "/?token=" + m.group(4);
  }

  @Test
  void everyInterfaceIsServedOverTlsWithAPrintedFingerprintAndSecureCookies() throws Exception {
    DashboardRun dashboard = start("--host", "0.0.0.0");
    assertThat(dashboard.url).startsWith("https://").doesNotContain("0.0.0.0");
    assertThat(dashboard.errors()).contains("warning: listening on every interface");
    Matcher fp = FINGERPRINT.matcher(dashboard.errors());
    assertThat(fp.find()).as(dashboard.errors()).isTrue();

    HttpClient browser = trusting(fp.group(1));
    String url = onLoopback(dashboard);
    HttpResponse<String> first = get(browser, url, null);
    assertThat(first.statusCode()).isEqualTo(303);
    String cookie = first.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(cookie).contains("HttpOnly", "Secure");
    String session = cookie.substring(0, cookie.indexOf(';'));
    HttpResponse<String> page = get(browser, url.substring(0, url.indexOf('?')), session);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("Overview");

    // a client that trusts another certificate is refused the connection
    HttpClient other = trusting("00" + ":00".repeat(31));
    assertThatThrownBy(() -> get(other, url, null)).isInstanceOf(IOException.class);
    // and plain HTTP on that port gets no page
    String plain = url.replace("https://", "http://");
    boolean served;
    try {
      served = get(HttpClient.newHttpClient(), plain, null).statusCode() == 303;
    } catch (IOException e) {
      served = false;
    }
    assertThat(served).isFalse();
  }

  @Test
  void plainHttpBeyondLoopbackOnlyWhenAskedAndSecureCookiesBehindATrustedProxy() throws Exception {
    DashboardRun dashboard = start("--host", "0.0.0.0", "--insecure-http", "--trust-forwarded");
    assertThat(dashboard.url).startsWith("http://").doesNotContain("0.0.0.0");
    assertThat(dashboard.errors()).contains("plain HTTP beyond loopback (--insecure-http)");
    String url = onLoopback(dashboard);
    HttpClient client = HttpClient.newHttpClient();
    String direct = get(client, url, null).headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(direct).contains("HttpOnly").doesNotContain("Secure");
    HttpResponse<String> proxied =
        client.send(
            HttpRequest.newBuilder(URI.create(url)).header("X-Forwarded-Proto", "https").build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(proxied.headers().firstValue("Set-Cookie").orElseThrow()).contains("Secure");
  }

  @Test
  void withoutTrustForwardedTheProxysHeaderIsIgnored() throws Exception {
    DashboardRun dashboard = start("--host", "0.0.0.0", "--insecure-http");
    HttpResponse<String> proxied =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(onLoopback(dashboard)))
                    .header("X-Forwarded-Proto", "https")
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(proxied.headers().firstValue("Set-Cookie").orElseThrow()).doesNotContain("Secure");
  }

  private static HttpResponse<String> get(HttpClient client, String url, String cookie)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
    if (cookie != null) {
      b.header("Cookie", cookie);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A client that trusts exactly the certificate of this SHA-256 fingerprint. */
  private static HttpClient trusting(String fingerprint) throws Exception {
    X509TrustManager pinned =
        new X509TrustManager() {
          @Override
          public void checkClientTrusted(X509Certificate[] chain, String authType)
              throws CertificateException {
            throw new CertificateException("no client certificates here");
          }

          @Override
          public void checkServerTrusted(X509Certificate[] chain, String authType)
              throws CertificateException {
            try {
              String seen =
                  HexFormat.ofDelimiter(":")
                      .withUpperCase()
                      .formatHex(
                          MessageDigest.getInstance("SHA-256").digest(chain[0].getEncoded()));
              if (!seen.equals(fingerprint)) {
                throw new CertificateException("not the printed certificate: " + seen);
              }
            } catch (java.security.NoSuchAlgorithmException e) {
              throw new CertificateException(e);
            }
          }

          @Override
          public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
          }
        };
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, new TrustManager[] {pinned}, null);
    return HttpClient.newBuilder()
        .sslContext(tls)
        .followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }
}
