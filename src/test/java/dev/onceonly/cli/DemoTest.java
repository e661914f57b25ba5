package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code onceonly demo} on a temporary file, twice: the first run creates one report per job and
 * one ticket, the second answers them from their receipts. The summary line is checked against the
 * rows, read through a fresh connection with this test's own queries, and a duplicate row slipped
 * into the file turns the line into FAILED with a non-zero status.
 */
class DemoTest {
  private static final Pattern LINE =
      Pattern.compile(
          "demo: intents=(\\d+) effects=(\\d+) duplicates=(\\d+) repeated=(\\d+) conflicts=(\\d+)"
              + " rejected=(\\d+) pending=(\\d+) (OK|FAILED)");
  private static final String[] NAMES = {
    "intents", "effects", "duplicates", "repeated", "conflicts", "rejected", "pending"
  };
  private static final int JOBS = 60;
  private static final int WITHHELD =
      3; // lote-007, -027, -047: the producer dies before publishing

  @TempDir Path dir;

  @Test
  void runsTwiceOnOneFileAndTheSummaryMatchesTheRows() throws Exception {
    Path file = dir.resolve("demo.db");
    String[] demo = {"demo", "--db", file.toString(), "--jobs", String.valueOf(JOBS)};

    CliRun first = CliRun.of(demo);
    assertThat(first.status()).as("%s", first).isZero();
    assertThat(first.out())
        .contains("died before the commit: rolled back, delivery abandoned")
        .contains("taller/lote-000 came back (attempt 2) and is created")
        .contains("reconciler: 3 intents without a receipt, 3 published again")
        .contains("request: Created ticket 1")
        .contains("retry with the same key: Repeated ticket 1")
        .contains("same key, other subject: Conflict");
    Map<String, Long> one = summary(first);
    assertThat(first.lastLine()).endsWith(" OK");
    assertRows(file, one, 4);
    assertThat(one.get("repeated")).as("the late duplicate and the ticket's retry").isEqualTo(2);
    assertThat(one.get("conflicts")).isEqualTo(1);

    CliRun second = CliRun.of(demo);
    assertThat(second.status()).as("%s", second).isZero();
    assertThat(second.out())
        .contains("took lote-000, already done: Repeated, acknowledged")
        .contains("request: Repeated ticket 1");
    Map<String, Long> two = summary(second);
    assertRows(file, two, 8);
    assertThat(two.get("repeated"))
        .as("every published job, the late duplicate and both ticket requests")
        .isEqualTo(JOBS - WITHHELD + 1 + 2);
  }

  @Test
  void aDuplicateRowMakesTheDemoFail() throws Exception {
    Path file = dir.resolve("demo.db");
    String[] demo = {"demo", "--db", file.toString(), "--jobs", "50"};
    assertThat(CliRun.of(demo).status()).isZero();
    try (Connection c = connect(file);
        Statement s = c.createStatement()) {
      s.executeUpdate("INSERT INTO reports SELECT * FROM reports WHERE job_id = 'lote-005'");
    }

    CliRun run = CliRun.of(demo);

    assertThat(run.status()).as("%s", run).isEqualTo(1);
    assertThat(run.lastLine()).contains(" duplicates=1 ").endsWith(" FAILED");
  }

  @Test
  void runsThroughAJdbcUrlAsWell() throws Exception {
    Path file = dir.resolve("url.db");
    CliRun run = CliRun.of("demo", "--jdbc-url", "jdbc:sqlite:" + file, "--jobs", "50");
    assertThat(run.status()).as("%s", run).isZero();
    assertThat(run.lastLine()).endsWith(" OK");
    try (Connection c = connect(file)) {
      assertThat(count(c, "SELECT COUNT(DISTINCT job_id) FROM reports")).isEqualTo(50);
      assertThat(count(c, "SELECT COUNT(*) FROM reports")).isEqualTo(50);
    }
  }

  @Test
  void aMissingDriverFailsClearly() {
    CliRun pg = CliRun.of("demo", "--jdbc-url", "jdbc:nosuchdb://h/db?password=s3cret");
    assertThat(pg.status()).isEqualTo(4);
    assertThat(pg.err())
        .startsWith("onceonly: no JDBC driver on the class path accepts")
        .doesNotContain("s3cret");
  }

  private static Map<String, Long> summary(CliRun run) {
    Matcher m = LINE.matcher(run.lastLine());
    assertThat(m.matches()).as("last line of %s", run).isTrue();
    Map<String, Long> values = new LinkedHashMap<>();
    for (int i = 0; i < NAMES.length; i++) {
      values.put(NAMES[i], Long.parseLong(m.group(i + 1)));
    }
    return values;
  }

  /** The summary's counts, against the rows through a new connection. */
  private static void assertRows(Path file, Map<String, Long> summary, long rejections)
      throws SQLException {
    try (Connection c = connect(file)) {
      long intents = count(c, "SELECT COUNT(*) FROM onceonly_intents");
      long ticketReceipts =
          count(c, "SELECT COUNT(*) FROM onceonly_receipts WHERE operation = 'create_ticket'");
      assertThat(intents).isEqualTo(JOBS);
      assertThat(ticketReceipts).isOne();
      assertThat(summary.get("intents")).isEqualTo(intents + ticketReceipts);
      assertThat(count(c, "SELECT COUNT(*) FROM reports")).isEqualTo(JOBS);
      assertThat(count(c, "SELECT COUNT(DISTINCT job_id) FROM reports")).isEqualTo(JOBS);
      assertThat(count(c, "SELECT COUNT(*) FROM tickets")).isOne();
      assertThat(summary.get("effects")).isEqualTo(JOBS + 1L);
      assertThat(summary.get("duplicates")).isZero();
      assertThat(count(c, "SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(JOBS + 1L);
      assertThat(count(c, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
      assertThat(count(c, "SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
      assertThat(summary.get("pending")).isZero();
      assertThat(count(c, "SELECT COUNT(*) FROM onceonly_rejections")).isEqualTo(rejections);
      assertThat(summary.get("rejected")).isEqualTo(4);
    }
  }

  private static Connection connect(Path file) throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
