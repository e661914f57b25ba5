package dev.onceonly.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.external.Claim;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.Failure;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The dashboard in a real browser: Debian's headless Chromium driven by the system chromedriver (no
 * driver is downloaded), against a dashboard with an access token on a SQLite file. Skipped with
 * one line when Chromium or chromedriver is missing, except under {@code CI=true}, where their
 * absence fails. {@code -Donceonly.test.chromium} and {@code -Donceonly.test.chromedriver} name
 * other binaries (a Chrome and its driver where Debian's packages are not the system's).
 */
class DashboardBrowserTest {
  private static final Path CHROMIUM =
      Path.of(System.getProperty("onceonly.test.chromium", "/usr/bin/chromium"));
  private static final Path CHROMEDRIVER =
      Path.of(System.getProperty("onceonly.test.chromedriver", "/usr/bin/chromedriver"));
  private static final Path SHOTS = Path.of("target", "dashboard-screenshots");

  @TempDir static Path profile;
  private static ChromeDriverService service;
  private static ChromeDriver browser;

  @TempDir Path dir;
  private OnceOnly once;
  private DashboardServer server;
  private String token;

  @BeforeAll
  static void startBrowser() throws Exception {
    boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    if (!present && "true".equals(System.getenv("CI"))) {
      throw new IllegalStateException(
          "CI=true but "
              + CHROMIUM
              + " or "
              + CHROMEDRIVER
              + " is missing: install chromium"
              + " and chromium-driver");
    }
    Assumptions.assumeTrue(
        present, "browser tests skipped: no " + CHROMIUM + " or " + CHROMEDRIVER);
    service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,900",
        "--user-data-dir=" + profile.toAbsolutePath());
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    browser = new ChromeDriver(service, options);
    browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
    Files.createDirectories(SHOTS);
  }

  @AfterAll
  static void stopBrowser() {
    if (browser != null) {
      browser.quit();
    }
    if (service != null) {
      service.stop();
    }
  }

  @BeforeEach
  void startDashboard() throws Exception {
    once = OnceOnly.openSqlite(dir.resolve("app.db"));
    token = DashboardServlet.newAccessToken();
    server = new DashboardServer(DashboardServlet.builder(once).accessToken(token).build());
    browser.manage().deleteAllCookies();
    browser.get(server.url("/?token=" + token));
    consoleErrors(); // drop what an earlier test left
  }

  @AfterEach
  void stopDashboard() throws Exception {
    server.close();
    once.close();
  }

  @Test
  void theOverviewLoadsWithNoConsoleErrorAndTheTokenLeavesTheAddressBar() throws Exception {
    once.queue().send("mail", "m-1", Map.of("to", "ana"));
    deadLetter("reports", "r-1", Map.of("n", 1), "disk full");
    browser.get(server.url("/?token=" + token));
    assertThat(browser.getCurrentUrl()).isEqualTo(server.url("/"));
    assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("Overview");
    assertThat(browser.findElement(By.tagName("main")).getText()).contains("mail", "reports");
    for (String page : List.of("/queues", "/dead-letters", "/unknown", "/schedules", "/audit")) {
      browser.get(server.url(page));
      assertThat(browser.findElement(By.tagName("h1")).getText()).isNotBlank();
    }
    browser.get(server.url("/"));
    screenshot("overview.png");
    assertThat(consoleErrors()).isEmpty();
  }

  @Test
  void aDeadLetterRequeuedInTheBrowserIsHandledByAWorker() throws Exception {
    exec("CREATE TABLE handled (message_key TEXT PRIMARY KEY)");
    deadLetter("reports", "r-1", Map.of("n", 1), "disk full");
    deadLetter("reports", "r-2", Map.of("n", 2), "disk full");
    browser.get(server.url("/dead-letters"));
    screenshot("dead-letters.png");
    WebElement row = rowOf("r-1");
    row.findElement(By.xpath(".//button[text()='Requeue']")).click();
    assertThat(doneNotice()).contains("Requeued");

    try (Worker w =
        Worker.builder(
                once.queue(),
                "reports",
                job ->
                    job.completeWith(
                        c -> {
                          try (PreparedStatement ps =
                              c.prepareStatement("INSERT INTO handled VALUES (?)")) {
                            ps.setString(1, job.delivery().key());
                            return ps.executeUpdate();
                          }
                        }))
            .build()) {
      w.start();
      Eventually.await(
          Duration.ofSeconds(30), "r-1 handled", () -> count("SELECT COUNT(*) FROM handled") == 1);
    }
    assertThat(strings("SELECT message_key FROM handled")).containsExactly("r-1");
    assertThat(strings("SELECT message_key FROM onceonly_dead_letters")).containsExactly("r-2");
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(consoleErrors()).isEmpty();
  }

  @Test
  void aMessageFoundByKeyInTheBrowserIsWithdrawn() throws Exception {
    once.queue().send("mail", "m-1", Map.of("to", "ana"));
    once.queue().send("mail", "m-2", Map.of("to", "ben"));
    browser.get(server.url("/queues"));
    WebElement find = browser.findElement(By.id("find"));
    find.findElement(By.name("queue")).sendKeys("mail");
    find.findElement(By.name("key")).sendKeys("m-2");
    find.findElement(By.tagName("button")).click();
    awaitHeading("Message");
    assertThat(browser.findElement(By.id("message")).getText()).contains("m-2", "ben", "DUE");
    screenshot("message.png");
    browser.findElement(By.id("withdraw")).click();
    assertThat(doneNotice()).contains("Withdrew");
    assertThat(strings("SELECT message_key FROM onceonly_messages")).containsExactly("m-1");
    assertThat(consoleErrors()).isEmpty();
    browser.get(server.url("/message?queue=mail&key=m-2"));
    assertThat(browser.findElement(By.tagName("main")).getText()).contains("no message");
    consoleErrors(); // the 404 of a message no longer there
  }

  /**
   * Waits for the page whose heading is {@code heading}: a click on a link or a form's button may
   * return before the browser has left the page it was on.
   */
  private void awaitHeading(String heading) {
    Eventually.await(
        Duration.ofSeconds(30),
        "the page headed " + heading,
        () -> textOf(By.tagName("h1")).equals(heading));
  }

  /** The text of the first element {@code by} finds, or "" while the page is being replaced. */
  private String textOf(By by) {
    try {
      List<WebElement> found = browser.findElements(by);
      return found.isEmpty() ? "" : found.get(0).getText();
    } catch (org.openqa.selenium.StaleElementReferenceException e) {
      return ""; // the old page went away while it was read
    }
  }

  /**
   * The notice of the action just posted, once the page that answers it is there: a click on a
   * form's button may return before the browser has left the page it was on.
   */
  private String doneNotice() {
    Eventually.await(
        Duration.ofSeconds(30),
        "the page answering the action",
        () -> !browser.findElements(By.className("done")).isEmpty());
    return browser.findElement(By.className("done")).getText();
  }

  /**
   * The operator reviews a bulk delete of 1 to 8 dead letters in the browser; before the click on
   * Confirm, up to 50 more that match the filter arrive (generated, {@code
   * -Donceonly.dashboard.seed=S}). The confirmation deletes the reviewed ones alone.
   */
  @Test
  void aBulkDeleteConfirmedInTheBrowserDeletesOnlyWhatWasReviewed() throws Exception {
    long seed = Long.getLong("onceonly.dashboard.seed", System.nanoTime());
    java.util.Random random = new java.util.Random(seed);
    int shown = 1 + random.nextInt(8);
    int arriving = 1 + random.nextInt(50);
    for (int i = 0; i < shown; i++) {
      deadLetter("reports", "shown-" + i, Map.of("n", i), "timeout at the bank");
    }
    deadLetter("reports", "other", Map.of("n", -1), "bad json");
    browser.get(server.url("/dead-letters"));
    WebElement bulk =
        browser.findElement(By.xpath("//form[contains(@action, '/dead-letters/bulk')]"));
    bulk.findElement(By.name("error")).sendKeys("timeout");
    bulk.findElement(By.xpath(".//option[text()='delete']")).click();
    bulk.findElement(By.tagName("button")).click();
    awaitHeading("Confirm");
    assertThat(textOf(By.className("confirm"))).contains("This will delete " + shown);
    assertThat(browser.findElements(By.cssSelector("ol.reviewed li"))).hasSize(shown);

    for (int i = 0; i < arriving; i++) { // while the operator reads the list
      deadLetter("reports", "arrived-" + i, Map.of("n", i), "timeout at the bank");
    }
    browser.findElement(By.xpath("//button[starts-with(text(), 'Yes, delete')]")).click();
    assertThat(doneNotice())
        .as("seed " + seed)
        .contains("Deleted " + shown + " of the " + shown + " dead letters reviewed.");
    assertThat(strings("SELECT message_key FROM onceonly_dead_letters ORDER BY message_key"))
        .as("seed " + seed)
        .hasSize(arriving + 1)
        .allMatch(k -> k.startsWith("arrived-") || k.equals("other"));
    assertThat(consoleErrors()).isEmpty();
  }

  @Test
  void anUnknownOutcomeResolvedInTheBrowserIsSettled() throws Exception {
    IntentKey key = IntentKey.of("u-1", "charge-7");
    Claim claim =
        ((ClaimOutcome.Claimed)
                once.externalEffects()
                    .claim(key, "charge", Map.of("cents", 5), Duration.ofMinutes(1)))
            .claim();
    once.externalEffects().fail(claim, Failure.unknownAfterSend("timeout after send"));
    browser.get(server.url("/unknown"));
    WebElement row = rowOf("charge-7");
    row.findElement(By.name("reason")).sendKeys("found at the provider");
    row.findElement(By.xpath(".//button[text()='Done']")).click();
    assertThat(doneNotice()).contains("COMPLETED");
    assertThat(strings("SELECT state FROM onceonly_claims")).containsExactly("COMPLETED");
    assertThat(strings("SELECT result FROM onceonly_claims"))
        .singleElement()
        .asString()
        .contains("found at the provider", "token");
    assertThat(consoleErrors()).isEmpty();
  }

  @Test
  void aPayloadHoldingAScriptShowsAsText() throws Exception {
    String hostile = "<script>alert('x')</script><img src=x onerror=alert(1)>";
    deadLetter("reports", "r-1", Map.of("note", hostile), hostile);
    browser.get(server.url("/dead-letters"));
    assertThat(rowOf("r-1").getText()).contains(hostile);
    rowOf("r-1").findElement(By.linkText("r-1")).click();
    awaitHeading("Dead letter");
    assertThat(browser.findElement(By.tagName("main")).getText()).contains(hostile);
    assertThat(browser.findElements(By.tagName("script"))).isEmpty();
    assertThat(browser.findElements(By.cssSelector("main img"))).isEmpty();
    assertThatThrownBy(() -> browser.switchTo().alert())
        .isInstanceOf(NoAlertPresentException.class);
  }

  @Test
  void anActionWithoutTheCsrfValueOrTheTokenIsRefusedAndChangesNothing() throws Exception {
    deadLetter("reports", "r-1", Map.of("n", 1), "disk full");
    browser.get(server.url("/dead-letters"));
    // The form, as a forged page would post it: every field but the CSRF value.
    ((JavascriptExecutor) browser)
        .executeScript("document.querySelectorAll('input[name=csrf]').forEach(e => e.remove());");
    rowOf("r-1").findElement(By.xpath(".//button[text()='Requeue']")).click();
    Eventually.await(
        Duration.ofSeconds(30),
        "the page refusing the action",
        () -> textOf(By.tagName("body")).contains("nothing changed"));
    assertThat(browser.findElement(By.tagName("body")).getText())
        .contains("CSRF", "nothing changed");

    browser.manage().deleteAllCookies();
    browser.get(server.url("/dead-letters"));
    assertThat(browser.findElement(By.tagName("body")).getText()).contains("access token");
    assertThat(strings("SELECT message_key FROM onceonly_dead_letters")).containsExactly("r-1");
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  private WebElement rowOf(String key) {
    return browser.findElement(By.xpath("//tr[td[contains(., '" + key + "')]]"));
  }

  private void deadLetter(String queue, String key, Object payload, String error) {
    once.queue().send(queue, key, payload);
    for (Delivery d : once.queue().receive(queue, 10, Duration.ofMinutes(1))) {
      once.queue().deadLetter(d.lease(), error);
    }
  }

  /** The browser's console errors since the last call (reading the log empties it). */
  private static List<String> consoleErrors() {
    return browser.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
        .map(LogEntry::getMessage)
        .toList();
  }

  private static void screenshot(String name) throws Exception {
    File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(shot.toPath(), SHOTS.resolve(name), StandardCopyOption.REPLACE_EXISTING);
  }

  private Connection connect() throws Exception {
    return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("app.db"));
  }

  private void exec(String sql) throws Exception {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private long count(String sql) {
    return Long.parseLong(strings(sql).get(0));
  }

  private List<String> strings(String sql) {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new java.util.ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (Exception e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
