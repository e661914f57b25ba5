package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.ContractDatabases;
import dev.onceonly.testing.SqliteContractDatabase;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code onceonly dashboard} in this process, on the store {@link CommandsContract} prepares (a
 * dead letter {@code m-1} in queue {@code mail}): started on port 0, its printed URL fetched with a
 * real HTTP client, acted on through HTTP with the token and a CSRF value, stopped as a caller
 * stops it (an interrupt), and the rows read afterwards through a fresh connection.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class DashboardCommandContract {
  private static final Pattern URL =
      Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)/\\?token=([A-Za-z0-9_-]{43})");
  private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([A-Za-z0-9_-]+)\"");

  @Parameter ContractDatabases.Factory kind;

  @TempDir Path dir;

  private ContractDatabase store;
  private final List<DashboardRun> running = new ArrayList<>();

  @BeforeEach
  void prepareStore() throws Exception {
    store = kind.create(Files.createDirectory(dir.resolve("db")));
    CommandsContract.prepare(store, "onceonly_");
  }

  @AfterEach
  void stop() throws Exception {
    for (DashboardRun r : running) {
      r.stop();
    }
    if (store instanceof AutoCloseable c) {
      c.close();
    }
  }

  @Test
  void thePrintedUrlOpensThePagesAndARequeueThroughHttpChangesTheRows() throws Exception {
    DashboardRun dashboard = start();
    HttpClient browser = browser();
    HttpResponse<String> first = get(browser, dashboard.url);
    assertThat(first.statusCode()).as("the token moves into a cookie").isEqualTo(303);
    assertThat(first.headers().firstValue("Location")).hasValue("/");
    HttpResponse<String> overview = get(browser, dashboard.base());
    assertThat(overview.statusCode()).isEqualTo(200);
    assertThat(overview.body()).contains("Overview", "dead letters");
    HttpResponse<String> dead = get(browser, dashboard.base() + "dead-letters");
    assertThat(dead.statusCode()).isEqualTo(200);
    assertThat(dead.body()).contains("m-1", "smtp refused", "Requeue");

    HttpResponse<String> requeued =
        post(
            browser,
            dashboard.base() + "dead-letters/requeue",
            "queue=mail&key=m-1&csrf=" + csrfOf(dead.body()));
    assertThat(requeued.statusCode()).as(requeued.body()).isEqualTo(200);
    assertThat(requeued.body()).contains("Requeued");

    assertThat(dashboard.stop()).as("a clean stop").isZero();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_messages WHERE message_key = 'm-1'"))
        .isOne();
  }

  @Test
  void withoutTheTokenNothingIsServedAndNothingChanges() throws Exception {
    DashboardRun dashboard = start();
    HttpClient stranger = browser();
    assertThat(get(stranger, dashboard.base()).statusCode()).isEqualTo(401);
    assertThat(get(stranger, dashboard.base() + "dead-letters").statusCode()).isEqualTo(401);
    assertThat(get(stranger, dashboard.base() + "?token=" + "A".repeat(43)).statusCode())
        .isEqualTo(401);
    // a CSRF value that is valid for another browser does not stand in for the token
    HttpClient operator = browser();
    get(operator, dashboard.url);
    String csrf = csrfOf(get(operator, dashboard.base() + "dead-letters").body());
    HttpResponse<String> refused =
        post(
            stranger, dashboard.base() + "dead-letters/requeue", "queue=mail&key=m-1&csrf=" + csrf);
    assertThat(refused.statusCode()).isEqualTo(401);
    // with the token but without the CSRF value
    assertThat(
            post(operator, dashboard.base() + "dead-letters/requeue", "queue=mail&key=m-1")
                .statusCode())
        .isEqualTo(403);

    assertThat(dashboard.stop()).isZero();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isOne();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_messages WHERE message_key = 'm-1'"))
        .isZero();
  }

  @Test
  void readOnlyShowsNoActionAndRefusesThem() throws Exception {
    DashboardRun dashboard = start("--read-only");
    HttpClient browser = browser();
    get(browser, dashboard.url);
    for (String page : List.of("", "dead-letters", "queues", "schedules", "unknown", "receipts")) {
      HttpResponse<String> r = get(browser, dashboard.base() + page);
      assertThat(r.statusCode()).as("%s: %s", page, r.body()).isEqualTo(200);
      assertThat(r.body()).as(page).doesNotContain("name=\"csrf\"", "<form method=\"post\"");
    }
    assertThat(get(browser, dashboard.base() + "dead-letters").body()).contains("m-1");
    HttpResponse<String> refused =
        post(
            browser,
            dashboard.base() + "dead-letters/requeue",
            "queue=mail&key=m-1&csrf=" + "A".repeat(43));
    assertThat(refused.statusCode()).isEqualTo(405);
    assertThat(refused.body()).contains("read-only");

    assertThat(dashboard.stop()).isZero();
    assertThat(store.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isOne();
  }

  /**
   * The prepared claim's lease ran out long ago without a report: a sweep would make it {@code
   * UNKNOWN}. Reading the Unknown outcomes page sweeps nothing, on a dashboard that may act as on a
   * read-only one; and a read-only dashboard opens a SQLite file read-only, leaving its bytes,
   * modification time and neighbouring files as they were.
   */
  @Test
  void readingTheUnknownPageSweepsNothingAndReadOnlyLeavesTheFileAsItWas() throws Exception {
    String claimed = "SELECT COUNT(*) FROM onceonly_claims WHERE state = 'IN_PROGRESS'";
    assertThat(store.count(claimed)).isOne();
    for (boolean readOnly : new boolean[] {false, true}) {
      String before = fileState();
      DashboardRun dashboard = readOnly ? start("--read-only") : start();
      HttpClient browser = browser();
      get(browser, dashboard.url);
      HttpResponse<String> page = get(browser, dashboard.base() + "unknown");
      assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
      assertThat(page.body()).contains("0 waiting for a decision");
      assertThat(dashboard.stop()).isZero();
      assertThat(store.count(claimed)).as("read-only %s", readOnly).isOne();
      if (readOnly) {
        assertThat(fileState()).isEqualTo(before);
      }
    }
  }

  /** On SQLite, the file's SHA-256, modification time and which neighbouring files exist. */
  private String fileState() throws Exception {
    if (!(store instanceof SqliteContractDatabase sqlite)) {
      return "";
    }
    Path file = sqlite.file();
    StringBuilder s =
        new StringBuilder(
            java.util.HexFormat.of()
                .formatHex(
                    java.security.MessageDigest.getInstance("SHA-256")
                        .digest(Files.readAllBytes(file))));
    s.append(' ').append(Files.getLastModifiedTime(file));
    for (String suffix : List.of("-wal", "-shm", "-journal")) {
      s.append(' ').append(suffix).append(Files.exists(Path.of(file + suffix)));
    }
    return s.toString();
  }

  @Test
  void aMissingFileIsATypedErrorAndIsNotCreated() {
    assumeTrue(store instanceof SqliteContractDatabase);
    Path missing = dir.resolve("missing.db");
    CliRun run = CliRun.of("dashboard", "--db", missing.toString());
    assertThat(run.status()).as("%s", run).isEqualTo(CliException.NOT_FOUND);
    assertThat(run.err()).startsWith("onceonly: no database file at " + missing);
    assertThat(run.out()).isEmpty();
    assertThat(missing).doesNotExist();
    assertThat(dir.resolve("missing.db-wal")).doesNotExist();
  }

  @Test
  void aPortOutOfRangeIsAUsageError() {
    CliRun run = CliRun.of(args("--port", "65536"));
    assertThat(run.status()).as("%s", run).isEqualTo(CliException.USAGE);
    assertThat(run.err()).contains("--port must be 0 to 65535");
  }

  @Test
  void aPortInUseIsOneLineAndTheStoreIsClosed() throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      CliRun run = CliRun.of(args("--port", String.valueOf(taken.getLocalPort())));
      assertThat(run.status()).as("%s", run).isEqualTo(CliException.USAGE);
      assertThat(run.err())
          .startsWith("onceonly: cannot listen on 127.0.0.1:" + taken.getLocalPort());
      assertThat(run.out()).isEmpty();
    }
    // the store was closed: another dashboard opens it and serves it
    DashboardRun again = start();
    assertThat(get(browser(), again.url).statusCode()).isEqualTo(303);
    assertThat(again.stop()).isZero();
  }

  private String[] args(String... more) {
    List<String> all = new ArrayList<>(List.of("dashboard"));
    all.addAll(List.of(CommandsContract.target(store)));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  /** Starts the command on port 0 in a thread of its own and waits for the URL it prints. */
  private DashboardRun start(String... more) {
    List<String> all = new ArrayList<>(List.of(args(more)));
    all.add("--port");
    all.add("0");
    DashboardRun r = new DashboardRun(URL, all.toArray(String[]::new));
    running.add(r);
    return r;
  }

  private static HttpClient browser() {
    return HttpClient.newBuilder()
        .cookieHandler(new CookieManager())
        .followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  static HttpResponse<String> get(HttpClient client, String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  static HttpResponse<String> post(HttpClient client, String url, String form) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  static String csrfOf(String html) {
    Matcher m = CSRF.matcher(html);
    assertThat(m.find()).as("a CSRF field in:\n%s", html).isTrue();
    return URLEncoder.encode(m.group(1), StandardCharsets.UTF_8);
  }
}
