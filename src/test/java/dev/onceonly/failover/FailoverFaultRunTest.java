package dev.onceonly.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.cli.Main;
import dev.onceonly.readme.ChargeTarget;
import dev.onceonly.readme.ChargeTargets;
import dev.onceonly.testing.FaultReport;
import dev.onceonly.testing.FaultRun;
import dev.onceonly.testing.PatroniCluster;
import dev.onceonly.testing.PatroniCluster.Node;
import dev.onceonly.testing.SharedPatroniCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.Properties;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fault-injection kit through a failover of a real cluster ({@link FaultRun#failover}): the
 * children run on the cluster's multi-host URL ({@code targetServerType=primary}) of the test JVM's
 * one synchronous Patroni cluster ({@link SharedPatroniCluster}), and the trigger is Patroni's own
 * switchover, {@code patronictl switchover --force}, as an operator runs it. The docs target comes
 * out clean, counted on the new primary; the negative control whose charge commits before its
 * receipt's transaction, run through {@code onceonly crash-test --failover-command}, is caught.
 */
@Tag("failover")
@ExtendWith(SharedPatroniCluster.class)
class FailoverFaultRunTest {

  @Test
  void theDocsTargetComesOutCleanThroughAFailover(PatroniCluster cluster) throws Exception {
    String jdbcUrl = cluster.jdbcUrl(cluster.createDatabase("faultrun_docs"));
    Properties properties = PatroniCluster.properties();
    Node before = cluster.awaitLeader();
    FaultReport report =
        FaultRun.of(ChargeTarget.class, "SELECT order_id, COUNT(*) FROM charges GROUP BY order_id")
            .database(jdbcUrl, properties)
            .failover(() -> cluster.switchover())
            .kills(4)
            .parallel(2)
            .run();
    assertThat(report.clean()).as(report.summary()).isTrue();
    System.out.printf(
        "%sload average %.2f%n",
        report.summary(), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    assertThat(report.killPoints().keySet())
        .as(report.summary())
        .anyMatch(p -> p.startsWith("failover: application: before COMMIT"));
    assertThat(cluster.awaitLeader()).as("the leader after the run").isNotEqualTo(before);
    try (Connection c = cluster.connect("faultrun_docs")) {
      assertThat(FailoverTest.count(c, "SELECT count(*) FROM onceonly_receipts"))
          .isEqualTo(report.keys());
      assertThat(FailoverTest.count(c, "SELECT count(*) FROM charges")).isEqualTo(report.keys());
      assertThat(FailoverTest.count(c, "SELECT count(DISTINCT order_id) FROM charges"))
          .isEqualTo(report.keys());
    }
  }

  /**
   * A trigger that returns without failing the cluster over (as {@code patronictl} does, with exit
   * status 0, when it refuses a switchover) would let the waiting transaction commit and the run
   * say "clean" of what it never tested: the run sees the connection went on, and fails.
   */
  @Test
  void aTriggerThatDoesNotFailTheClusterOverFailsTheRun(PatroniCluster cluster) throws Exception {
    String jdbcUrl = cluster.jdbcUrl(cluster.createDatabase("faultrun_no_failover"));
    Node before = cluster.awaitLeader();
    FaultRun run =
        FaultRun.of(ChargeTarget.class, ChargeTargets.EFFECTS)
            .database(jdbcUrl, PatroniCluster.properties())
            .failover(() -> {})
            .kills(4)
            .parallel(2);
    assertThatThrownBy(run::run)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("did not fail over");
    assertThat(cluster.awaitLeader()).isEqualTo(before);
  }

  @Test
  void aChargeCommittedBeforeItsReceiptIsCaughtByAFailoverFromTheCommandLine(PatroniCluster cluster)
      throws Exception {
    String db = cluster.createDatabase("faultrun_control");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        Main.run(
            new String[] {
              "crash-test",
              "--target",
              ChargeTargets.OutsideTheReceiptsTransaction.class.getName(),
              "--effects-query",
              ChargeTargets.EFFECTS,
              "--jdbc-url",
              cluster.jdbcUrl(db) + "&user=postgres&password=pg",
              "--failover-command",
              cluster.switchoverCommand(),
              "--failovers",
              "2",
              "--kills",
              "2",
              "--keys",
              "16",
              "--json"
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String printed = out.toString(StandardCharsets.UTF_8);
    System.out.print(printed);
    assertThat(status).as("%s%s", printed, err).isEqualTo(1);
    JsonNode doc = new ObjectMapper().readTree(printed);
    assertThat(doc.get("kills").asInt()).as("no kill: every fault a failover").isZero();
    assertThat(doc.get("faults").asInt()).isEqualTo(2);
    assertThat(doc.get("duplicates").asLong()).as(printed).isPositive();
    assertThat(doc.get("killPoints").fieldNames())
        .toIterable()
        .as(printed)
        .filteredOn(p -> p.startsWith("failover: store: before COMMIT of "))
        .hasSize(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("Successfully switched over");
    try (Connection c = cluster.connect(db)) {
      assertThat(FailoverTest.count(c, "SELECT count(*) FROM charges"))
          .as("charges on the new primary")
          .isGreaterThan(FailoverTest.count(c, "SELECT count(*) FROM onceonly_receipts"));
    }
  }
}
