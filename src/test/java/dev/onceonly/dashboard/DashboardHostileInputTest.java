package dev.onceonly.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.external.Claim;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.Failure;
import dev.onceonly.external.ProbeAnswer;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a hostile or simply large store puts on the pages: ten thousand dead letters page through
 * whole, a 1 MiB payload is cut for display, and a key of Unicode and control characters is shown
 * escaped yet acted on exactly. The rows are written as fixtures straight into the tables, as a
 * store another version or another application filled.
 */
class DashboardHostileInputTest {
  private static final Pattern KEY_CELL = Pattern.compile("key=(dl-\\d+)\"");

  @TempDir Path dir;
  private OnceOnly once;
  private DashboardServer server;

  @BeforeEach
  void start() throws Exception {
    once = OnceOnly.openSqlite(dir.resolve("app.db"));
    server = new DashboardServer(DashboardServlet.builder(once).build());
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    once.close();
  }

  private Connection connect() throws Exception {
    return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("app.db"));
  }

  /** Writes dead letters in one transaction: key, payload JSON, dead at (epoch millis). */
  private void deadLetters(List<Object[]> rows) throws Exception {
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO onceonly_dead_letters (queue, message_key, fingerprint, payload,"
                  + " attempts, last_error, created_at, dead_at) VALUES ('q', ?, 'x', ?, 3,"
                  + " 'boom', 0, ?)")) {
        for (Object[] row : rows) {
          ps.setString(1, (String) row[0]);
          ps.setString(2, (String) row[1]);
          ps.setLong(3, (Long) row[2]);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      c.commit();
    }
  }

  /** Writes waiting messages of queue {@code q} in one transaction: key, payload JSON. */
  private void messages(List<String[]> rows) throws Exception {
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO onceonly_messages (queue, message_key, fingerprint, payload,"
                  + " deliver_at, created_at) VALUES ('q', ?, 'x', ?, 0, 0)")) {
        for (String[] row : rows) {
          ps.setString(1, row[0]);
          ps.setString(2, row[1]);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      c.commit();
    }
  }

  private static final Pattern MESSAGE_CELL = Pattern.compile("key=(m-\\d+)\"");
  private static final Pattern NEXT = Pattern.compile("rel=\"next\" href=\"/ops([^\"]+)\"");

  @Test
  void tenThousandMessagesOfOneQueuePageThroughWholeAndInOrder() throws Exception {
    List<String[]> rows = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      rows.add(new String[] {"m-" + i, "{}"});
    }
    messages(rows);
    List<String> seen = new ArrayList<>();
    String path = "/queues?queue=q";
    int pages = 0;
    while (path != null) {
      String body = server.get(path.replace("&amp;", "&")).body();
      pages++;
      Matcher m = MESSAGE_CELL.matcher(body);
      while (m.find()) {
        seen.add(m.group(1));
      }
      Matcher next = NEXT.matcher(body);
      path = next.find() ? next.group(1) : null;
    }
    assertThat(seen).hasSize(10_000).doesNotHaveDuplicates();
    assertThat(seen.get(0)).isEqualTo("m-0"); // in the order they were sent
    assertThat(seen.get(9_999)).isEqualTo("m-9999");
    assertThat(pages).isEqualTo(201); // 200 full pages, then an empty one ends it
    assertThat(server.get("/queues?queue=q").body()).contains("<td>10,000</td>");
  }

  @Test
  void aOneMebibyteMessagePayloadIsCutAndAHostileKeyIsFoundAndWithdrawn() throws Exception {
    String big = "{\"blob\":\"" + "x".repeat(1 << 20) + "\"}";
    String key = "ключ-\u0007-\u202E-<b>-\n";
    messages(List.<String[]>of(new String[] {"big", big}, new String[] {key, "{\"n\":1}"}));
    HttpResponse<String> page = server.get("/message?queue=q&key=big");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body().length()).isLessThan(20_000);
    assertThat(page.body()).contains("cut for display: showing 4,096 of 1,048,587 characters");

    String list = server.get("/queues?queue=q").body();
    assertThat(list).contains("ключ-\\u{0007}-\\u{202E}-&lt;b&gt;-\\u{000A}");
    String hostile = server.get("/message?queue=q&key=" + Pages.encode(key)).body();
    assertThat(hostile).contains("&quot;n&quot;:1").doesNotContain("\u0007", "\u202E", "<b>");
    String key64 = Base64.getUrlEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8));
    assertThat(
            server
                .act(
                    "/message?queue=q&key=" + Pages.encode(key),
                    "/queues/withdraw",
                    Map.of("queue64", "cQ==", "key64", key64))
                .body())
        .contains("Withdrew");
    try (Connection c = connect();
        ResultSet rs =
            c.createStatement().executeQuery("SELECT message_key FROM onceonly_messages")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("big");
      assertThat(rs.next()).isFalse();
    }
  }

  private static final Pattern MESSAGE_LINK =
      Pattern.compile("href=\"/ops(/message\\?queue=q&amp;key=[^\"]*)\"");
  private static final Pattern KEY64 = Pattern.compile("name=\"key64\" value=\"([^\"]*)\"");

  /**
   * Generated keys of controls, bidi and zero-width characters, markup, Cyrillic and emoji, written
   * straight into the table: each is reached from the queue's list by its link, its page carries it
   * exactly, and withdrawing every other one leaves exactly the others, compared with the test's
   * own set after reopening.
   */
  @Test
  void generatedHostileKeysAreReachedFromTheListAndWithdrawnExactly() throws Exception {
    long seed = Long.getLong("onceonly.properties.seed", 0x5EED_0DA5L);
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    int[][] ranges = {
      {0x21, 0x7E}, {0x01, 0x1F}, {0x7F, 0x9F}, {0x200B, 0x200F}, {0x202A, 0x202E},
      {0x2060, 0x206F}, {0xFEFF, 0xFEFF}, {0x0400, 0x04FF}, {0x1F600, 0x1F64F}, {'&', '<'}
    };
    Set<String> keys = new java.util.LinkedHashSet<>();
    while (keys.size() < 120) {
      StringBuilder k = new StringBuilder();
      for (int i = 1 + random.nextInt(12); i > 0; i--) {
        int[] range = ranges[random.nextInt(ranges.length)];
        k.appendCodePoint(range[0] + random.nextInt(range[1] - range[0] + 1));
      }
      keys.add(k.toString());
    }
    List<String[]> rows = new ArrayList<>();
    for (String k : keys) {
      rows.add(new String[] {k, "{}"});
    }
    messages(rows);
    List<String> paths = new ArrayList<>();
    for (String list = "/queues?queue=q"; list != null; ) {
      String body = server.get(list).body();
      Matcher links = MESSAGE_LINK.matcher(body);
      while (links.find()) {
        paths.add(links.group(1).replace("&amp;", "&"));
      }
      Matcher next = NEXT.matcher(body);
      list = next.find() ? next.group(1).replace("&amp;", "&") : null;
    }
    Set<String> reached = new HashSet<>();
    Set<String> kept = new HashSet<>(keys);
    int n = 0;
    for (String path : paths) {
      HttpResponse<String> page = server.get(path);
      assertThat(page.statusCode()).as("seed %d: %s", seed, path).isEqualTo(200);
      Matcher key64 = KEY64.matcher(page.body());
      assertThat(key64.find()).isTrue();
      String key =
          new String(Base64.getUrlDecoder().decode(key64.group(1)), StandardCharsets.UTF_8);
      reached.add(key);
      if (n++ % 2 == 0) {
        HttpResponse<String> done =
            server.act(
                path, "/queues/withdraw", Map.of("queue64", "cQ==", "key64", key64.group(1)));
        assertThat(done.body()).as("seed %d", seed).contains("Withdrew");
        kept.remove(key);
      }
    }
    assertThat(reached).as("seed %d", seed).isEqualTo(keys);
    once.close();
    once = OnceOnly.openSqlite(dir.resolve("app.db"));
    Set<String> left = new HashSet<>();
    try (Connection c = connect();
        ResultSet rs =
            c.createStatement().executeQuery("SELECT message_key FROM onceonly_messages")) {
      while (rs.next()) {
        left.add(rs.getString(1));
      }
    }
    assertThat(left).as("seed %d", seed).isEqualTo(kept);
  }

  private static final Pattern SHOWN_KEY = Pattern.compile(">(tagged[^<]*)<");

  /**
   * Two dead letters whose keys differ only by a tag character beyond the Basic Multilingual Plane
   * (U+E0041, invisible in a browser): the list shows them differently, the tag as an escape.
   */
  @Test
  void keysDifferingByAnInvisibleCharacterBeyondTheBmpAreShownDifferently() throws Exception {
    String tag = new String(Character.toChars(0xE0041));
    String plain = "tagged-key";
    String tagged = "tagged-" + tag + "key";
    deadLetters(List.of(new Object[] {plain, "{}", 1_000L}, new Object[] {tagged, "{}", 2_000L}));
    String body = server.get("/dead-letters").body();
    assertThat(body).doesNotContain(tag).contains("tagged-\\u{E0041}key");
    Set<String> shown = new HashSet<>();
    Matcher m = SHOWN_KEY.matcher(body);
    while (m.find()) {
      shown.add(m.group(1));
    }
    assertThat(shown).as(body).containsExactlyInAnyOrder("tagged-key", "tagged-\\u{E0041}key");
  }

  @Test
  void aHostileProbeAnswerIsStoredWholeAndShownEscapedOnTheUnknownOutcomesPage() throws Exception {
    String hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>\u202Efdp.exe\u0007\"'&";
    IntentKey key = IntentKey.of("u-1", "charge-1");
    try (OnceOnly probing =
        OnceOnly.builder()
            .sqlite(dir.resolve("app.db"))
            .statusProbe("charge", claim -> ProbeAnswer.stillUnknown(hostile))
            .build()) {
      Claim c =
          ((ClaimOutcome.Claimed)
                  probing
                      .externalEffects()
                      .claim(key, "charge", Map.of("cents", 5), java.time.Duration.ofMinutes(1)))
              .claim();
      probing.externalEffects().fail(c, Failure.unknownAfterSend("timeout after send"));
      probing.externalEffects().resolveUnknown();
    }
    List<String> stored = new ArrayList<>();
    try (Connection c = connect();
        ResultSet rs =
            c.createStatement()
                .executeQuery("SELECT state, last_probe_answer FROM onceonly_claims")) {
      while (rs.next()) {
        stored.add(rs.getString(1) + " " + rs.getString(2));
      }
    }
    assertThat(stored).containsExactly("UNKNOWN still unknown: " + hostile);

    HttpResponse<String> page = server.get("/unknown");

    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body())
        .contains("charge-1", "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x", "\\u{202E}")
        .doesNotContain("<script", "<img", "\u202E", "\u0007");
    try (Connection c = connect();
        ResultSet rs =
            c.createStatement()
                .executeQuery("SELECT state, last_probe_answer FROM onceonly_claims")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1) + " " + rs.getString(2)).isEqualTo(stored.get(0));
      assertThat(rs.next()).isFalse();
    }
  }

  @Test
  void tenThousandDeadLettersPageThroughWholeAndInOrder() throws Exception {
    List<Object[]> rows = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      rows.add(new Object[] {"dl-" + i, "{}", 1_000_000L + i});
    }
    deadLetters(rows);
    String first = server.get("/dead-letters").body();
    assertThat(first).contains("10,000 dead letters; page <span id=\"page\">1</span> of 200");
    List<String> seen = new ArrayList<>();
    for (int page = 0; page < 200; page++) {
      String body = server.get("/dead-letters?queue=q&page=" + page).body();
      Matcher m = KEY_CELL.matcher(body);
      while (m.find()) {
        seen.add(m.group(1));
      }
    }
    Set<String> distinct = new HashSet<>(seen);
    assertThat(seen).hasSize(10_000);
    assertThat(distinct).hasSize(10_000);
    assertThat(seen.get(0)).isEqualTo("dl-9999"); // newest first
    assertThat(seen.get(9_999)).isEqualTo("dl-0");
    assertThat(server.get("/dead-letters?page=200").body()).doesNotContain("key=dl-");
    assertThat(server.get("/dead-letters?page=-1").statusCode()).isEqualTo(400);
  }

  @Test
  void aOneMebibytePayloadIsCutForDisplay() throws Exception {
    String big = "{\"blob\":\"" + "x".repeat(1 << 20) + "\"}";
    deadLetters(List.<Object[]>of(new Object[] {"big", big, 1L}));
    HttpResponse<String> page = server.get("/dead-letter?queue=q&key=big");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body().length()).isLessThan(20_000);
    assertThat(page.body()).contains("cut for display: showing 4,096 of 1,048,587 characters");
  }

  @Test
  void aKeyOfUnicodeAndControlCharactersShowsEscapedAndIsActedOnExactly() throws Exception {
    String key = "ключ-\u0007-\u202E-é-\uD83D\uDE00-<b>-\n-\u0000";
    deadLetters(List.<Object[]>of(new Object[] {key, "{\"n\":1}", 1L}));
    String list = server.get("/dead-letters").body();
    assertThat(list)
        .contains("ключ-\\u{0007}-\\u{202E}-é-\uD83D\uDE00-&lt;b&gt;-\\u{000A}-\\u{0000}")
        .doesNotContain("\u0007", "\u202E", "<b>", "\u0000");
    // the buttons carry the key exactly, though the page shows it escaped: Delete removes it
    String key64 = Base64.getUrlEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8));
    assertThat(list).contains("name=\"key64\" value=\"" + key64 + "\"");
    assertThat(
            server
                .act(
                    "/dead-letters",
                    "/dead-letters/delete",
                    Map.of("queue64", "cQ==", "key64", key64))
                .body())
        .contains("Deleted");
    try (Connection c = connect();
        ResultSet rs =
            c.createStatement().executeQuery("SELECT COUNT(*) FROM onceonly_dead_letters")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getLong(1)).isZero();
    }
  }

  /**
   * A dead letter whose key no send would accept (written by another writer) is shown on its own
   * page and requeued exactly: the queue's lookups by key name a row that exists, so they do not
   * hold the key to the pattern of a new send.
   */
  @Test
  void aDeadLetterOfAHostileKeyIsRequeuedExactly() throws Exception {
    String key = "ключ-\u0007-\u202E-é-\uD83D\uDE00-<b>-\n-\u0000";
    deadLetters(List.<Object[]>of(new Object[] {key, "{\"n\":1}", 1L}));
    String key64 = Base64.getUrlEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> page = server.get("/dead-letter?queue=q&key=" + Pages.encode(key));
    assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
    assertThat(page.body()).contains("&quot;n&quot;:1");
    HttpResponse<String> done =
        server.act(
            "/dead-letters", "/dead-letters/requeue", Map.of("queue64", "cQ==", "key64", key64));
    assertThat(done.body()).contains("Requeued");
    once.close();
    once = OnceOnly.openSqlite(dir.resolve("app.db")); // the rows, read after reopening
    try (Connection c = connect();
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT message_key, (SELECT COUNT(*) FROM onceonly_dead_letters)"
                        + " FROM onceonly_messages")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo(key);
      assertThat(rs.getLong(2)).isZero();
      assertThat(rs.next()).isFalse();
    }
  }
}
