package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.readme.ChargeTarget;
import dev.onceonly.readme.ChargeTargets;
import dev.onceonly.testing.EmbeddedPg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code onceonly crash-test}: a short run on the right charge target reports clean JSON with exit
 * status 0 and leaves its database where it was asked; a target that cannot be loaded is one line
 * on stderr with status 2.
 */
class CrashTestCommandTest {
  @TempDir Path dir;

  @Test
  void aShortRunOnTheRightTargetIsCleanAndSaysWhereItKilled() throws Exception {
    Path db = dir.resolve("crash.db");
    CliRun run =
        CliRun.of(
            "crash-test",
            "--target",
            ChargeTarget.class.getName(),
            "--effects-query",
            ChargeTargets.EFFECTS,
            "--kills",
            "3",
            "--keys",
            "8",
            "--db",
            db.toString(),
            "--json");
    assertThat(run.status()).as("%s", run).isZero();
    JsonNode doc = new ObjectMapper().readTree(run.out());
    assertThat(doc.get("clean").asBoolean()).isTrue();
    assertThat(doc.get("kills").asInt()).isEqualTo(3);
    assertThat(doc.get("keys").asInt()).isEqualTo(8);
    assertThat(doc.get("duplicates").asLong()).isZero();
    assertThat(doc.get("lost").asLong()).isZero();
    assertThat(doc.get("killPoints").size()).isPositive();
    assertThat(doc.get("killedInTheApplication").asBoolean()).as("%s", run).isTrue();
    assertThat(Files.exists(db)).isTrue();
  }

  /**
   * A target that charges through a pool of its own: no kill can land around its charge, so the run
   * says INCOMPLETE, how to hand the data source in, and exits 1; it is never OK.
   */
  @Test
  void aTargetWithAPoolOfItsOwnIsIncompleteAndFails() throws Exception {
    CliRun run =
        CliRun.of(
            "crash-test",
            "--target",
            ChargeTargets.OwnPool.class.getName(),
            "--effects-query",
            ChargeTargets.EFFECTS,
            "--kills",
            "3",
            "--keys",
            "8",
            "--db",
            dir.resolve("own-pool.db").toString());
    assertThat(run.status()).as("%s", run).isEqualTo(CliException.FAILED);
    assertThat(run.out().lines().findFirst().orElseThrow())
        .as("%s", run)
        .endsWith(" INCOMPLETE")
        .doesNotContain(" OK");
    assertThat(run.out())
        .contains("no kill at a point of the application's own")
        .contains("FaultTarget.prepare(once, dataSource)")
        .contains("FaultPoints.reached(name)");
  }

  @Test
  void onPostgresqlTheFaultsBeyondKillsAreGivenAndTheRunIsClean() throws Exception {
    String url = EmbeddedPg.url(EmbeddedPg.newDatabase("crash_test"));
    CliRun run =
        chargeTarget(
            "--kills",
            "3",
            "--keys",
            "24",
            "--jdbc-url",
            url,
            "--faults",
            "LOST_COMMIT_ANSWER,CONNECTION_RESET",
            "--json");
    assertThat(run.status()).as("%s", run).isZero();
    JsonNode doc = new ObjectMapper().readTree(run.out());
    assertThat(doc.get("clean").asBoolean()).isTrue();
    assertThat(doc.get("kills").asInt()).isZero();
    assertThat(doc.get("faults").asInt()).isEqualTo(3);
    assertThat(doc.get("database").asText()).startsWith("jdbc:postgresql:").doesNotContain("?");
    assertThat(doc.has("file")).isFalse();
    try (Connection c = EmbeddedPg.connect(url.replaceAll(".*/([^/?]+).*", "$1"));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(DISTINCT order_id), COUNT(*) FROM charges")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(24);
      assertThat(rs.getLong(2)).isEqualTo(24);
    }
  }

  @Test
  void aFileAndAUrlTogetherOrAFaultOnSqliteAreUsageErrors() {
    CliRun both =
        chargeTarget("--db", dir.resolve("a.db").toString(), "--jdbc-url", "jdbc:postgresql://x/y");
    assertThat(both.status()).as("%s", both).isEqualTo(2);
    assertThat(both.err()).contains("at most one of --db FILE or --jdbc-url URL");
    CliRun sqlite =
        chargeTarget("--db", dir.resolve("b.db").toString(), "--faults", "CONNECTION_RESET");
    assertThat(sqlite.status()).as("%s", sqlite).isEqualTo(2);
    assertThat(sqlite.err()).contains("on SQLite only kills apply");
    assertThat(dir.resolve("b.db")).doesNotExist();
  }

  private static CliRun chargeTarget(String... more) {
    List<String> args = new ArrayList<>();
    args.addAll(
        List.of(
            "crash-test",
            "--target",
            ChargeTarget.class.getName(),
            "--effects-query",
            ChargeTargets.EFFECTS));
    args.addAll(List.of(more));
    return CliRun.of(args.toArray(String[]::new));
  }

  @Test
  void aTargetThatCannotBeLoadedIsAUsageError() {
    CliRun run =
        CliRun.of(
            "crash-test",
            "--target",
            "com.example.NoSuchTarget",
            "--effects-query",
            ChargeTargets.EFFECTS,
            "--kills",
            "1",
            "--db",
            dir.resolve("none.db").toString());
    assertThat(run.status()).as("%s", run).isEqualTo(2);
    assertThat(run.err()).contains("a child JVM exited with status 1");
  }
}
