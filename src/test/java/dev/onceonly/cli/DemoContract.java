package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.cli.demo.Reports;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.ContractDatabases;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code onceonly demo} on an empty database of its own, twice: the first run creates one report
 * per job and one ticket, the second answers them from their receipts. The summary line is checked
 * against the rows, read through a fresh connection with this test's own queries, and a duplicate
 * row slipped into the database turns the line into FAILED with a non-zero status. Runs on a
 * temporary SQLite file ({@code --db}) and on a schema of its own on the embedded PostgreSQL server
 * ({@code --jdbc-url jdbc:postgresql:...}, the URL's {@code currentSchema}); other targets of the
 * demo are in {@link TargetTest}.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class DemoContract {
  private static final Pattern LINE =
      Pattern.compile(
          "demo: intents=(\\d+) effects=(\\d+) duplicates=(\\d+) repeated=(\\d+) conflicts=(\\d+)"
              + " rejected=(\\d+) pending=(\\d+) (OK|FAILED)");
  private static final String[] NAMES = {
    "intents", "effects", "duplicates", "repeated", "conflicts", "rejected", "pending"
  };
  private static final int JOBS = 60;
  private static final long SEED = 20_000; // the demo's default
  private static final int WITHHELD =
      3; // batch-007, -027, -047: the producer dies before publishing

  /** The database this run is on, one of {@link ContractDatabases}. */
  @Parameter ContractDatabases.Factory kind;

  @TempDir Path dir;

  /** This test's empty database. */
  private ContractDatabase db;

  @BeforeEach
  void createDatabase() {
    db = kind.create(dir);
  }

  @AfterEach
  void closePools() throws Exception {
    if (db instanceof AutoCloseable pools) {
      pools.close();
    }
  }

  private String[] demo(int jobs) {
    return Stream.concat(
            Stream.of("demo", "--jobs", String.valueOf(jobs)),
            Stream.of(CommandsContract.target(db)))
        .toArray(String[]::new);
  }

  @Test
  void runsTwiceOnOneDatabaseAndTheSummaryMatchesTheRows() throws SQLException {
    String[] demo = demo(JOBS);

    CliRun first = CliRun.of(demo);
    assertThat(first.status()).as("%s", first).isZero();
    assertThat(first.out())
        .contains("died before the commit: rolled back, delivery abandoned")
        .contains("workshop/batch-000 came back (attempt 2) and is created")
        .contains("reconciler: 3 intents without a receipt, 3 published again")
        .contains("request: Created ticket 1")
        .contains("retry with the same key: Repeated ticket 1")
        .contains("same key, other subject: Conflict");
    Map<String, Long> one = summary(first);
    assertThat(first.lastLine()).endsWith(" OK");
    assertRows(one, 4);
    assertThat(one.get("repeated")).as("the late duplicate and the ticket's retry").isEqualTo(2);
    assertThat(one.get("conflicts")).isEqualTo(1);

    CliRun second = CliRun.of(demo);
    assertThat(second.status()).as("%s", second).isZero();
    assertThat(second.out())
        .contains("took batch-000, already done: Repeated, acknowledged")
        .contains("request: Repeated ticket 1");
    Map<String, Long> two = summary(second);
    assertRows(two, 8);
    assertThat(two.get("repeated"))
        .as("every published job, the late duplicate and both ticket requests")
        .isEqualTo(JOBS - WITHHELD + 1 + 2);
  }

  @Test
  void aDuplicateRowMakesTheDemoFail() {
    String[] demo = demo(50);
    CliRun clean = CliRun.of(demo);
    assertThat(clean.status()).as("%s", clean).isZero();
    db.exec("INSERT INTO reports SELECT * FROM reports WHERE job_id = 'batch-005'");

    CliRun run = CliRun.of(demo);

    assertThat(run.status()).as("%s", run).isEqualTo(1);
    assertThat(run.lastLine()).contains(" duplicates=1 ").endsWith(" FAILED");
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
  private void assertRows(Map<String, Long> summary, long rejections) throws SQLException {
    long intents = db.count("SELECT COUNT(*) FROM onceonly_intents");
    long ticketReceipts =
        db.count("SELECT COUNT(*) FROM onceonly_receipts WHERE operation = 'create_ticket'");
    assertThat(intents).isEqualTo(JOBS);
    assertThat(ticketReceipts).isOne();
    assertThat(summary.get("intents")).isEqualTo(intents + ticketReceipts);
    assertThat(db.count("SELECT COUNT(*) FROM reports")).isEqualTo(JOBS);
    assertThat(db.count("SELECT COUNT(DISTINCT job_id) FROM reports")).isEqualTo(JOBS);
    assertThat(db.count("SELECT COUNT(*) FROM tickets")).isOne();
    assertThat(summary.get("effects")).isEqualTo(JOBS + 1L);
    assertThat(summary.get("duplicates")).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(JOBS + 1L);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    assertThat(summary.get("pending")).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_rejections")).isEqualTo(rejections);
    assertThat(summary.get("rejected")).isEqualTo(4);
    List<String> means = new ArrayList<>();
    for (ReportPipeline.ReportJob job : ReportPipeline.jobs(SEED, JOBS)) {
      means.add(job.jobId() + "=" + Reports.Report.of(job.samples()).mean());
    }
    List<String> stored = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT job_id, mean FROM reports ORDER BY job_id")) {
      while (rs.next()) {
        stored.add(rs.getString(1) + "=" + rs.getDouble(2));
      }
    }
    assertThat(stored)
        .as("each mean as computed, in double precision")
        .containsExactlyElementsOf(means);
  }
}
