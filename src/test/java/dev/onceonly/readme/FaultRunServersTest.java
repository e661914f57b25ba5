package dev.onceonly.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.testing.ContractDatabases;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.Fault;
import dev.onceonly.testing.FaultReport;
import dev.onceonly.testing.FaultRun;
import dev.onceonly.testing.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fault-injection kit on a database server, the embedded PostgreSQL and the build's MariaDB (a
 * new database per run, chosen with {@code -Donceonly.test.databases}), with the faults beyond
 * kills: the docs target is OK under kills, lost commit answers and connection resets, each aimed
 * at; each negative control is caught by the faults that can show it, on each server. Kept short
 * for the build (each fault is a JVM start): the docs target runs on PostgreSQL unless {@code
 * -Donceonly.test.databases} names the servers (for example {@code postgresql,mariadb}), and {@code
 * -Donceonly.faultrun.kills=N} sets its faults (default 10, as the other runs' counts are fixed).
 */
class FaultRunServersTest {
  static final int KILLS = Math.max(10, FaultRunTest.KILLS);

  /** A new, empty database on a server: its URL and its connection properties. */
  record Server(String url, Properties properties) {
    long count(String sql) throws SQLException {
      try (Connection c = DriverManager.getConnection(url, properties);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(sql)) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  static Stream<Named<Supplier<Server>>> servers() {
    Supplier<Server> pg =
        () ->
            new Server(
                EmbeddedPg.url(EmbeddedPg.newDatabase("fault_run")), EmbeddedPg.properties());
    Supplier<Server> maria =
        () ->
            new Server(MariaDbServer.url(MariaDbServer.newDatabase("fault_run")), new Properties());
    return Stream.of(Named.of("postgresql", pg), Named.of("mariadb", maria))
        .filter(n -> ContractDatabases.isChosen(n.getName()));
  }

  /**
   * The servers the docs target runs on: those {@code -Donceonly.test.databases} names, or only
   * PostgreSQL when it is unset, as in {@code verify} (the same kit's run on MariaDB costs 12 s,
   * and its controls run there anyway).
   */
  static Stream<Named<Supplier<Server>>> docsTargetServers() {
    boolean named = !System.getProperty("onceonly.test.databases", "").isBlank();
    return servers().filter(n -> named || n.getName().equals("postgresql"));
  }

  private static FaultRun run(Class<? extends dev.onceonly.testing.FaultTarget> target, Server s) {
    return FaultRun.of(target, ChargeTargets.EFFECTS)
        .database(s.url(), s.properties())
        .seed(FaultRunTest.SEED)
        .parallel(2);
  }

  @ParameterizedTest(name = "[{0}]")
  @MethodSource("docsTargetServers")
  void theDocsTargetIsOkUnderEveryFault(Supplier<Server> server) throws SQLException {
    Server s = server.get();
    String jdbcUrl = s.url();
    Properties properties = s.properties();
    FaultReport report =
        FaultRun.of(ChargeTarget.class, "SELECT order_id, COUNT(*) FROM charges GROUP BY order_id")
            .database(jdbcUrl, properties)
            .faults(Fault.KILL, Fault.LOST_COMMIT_ANSWER, Fault.CONNECTION_RESET)
            .kills(KILLS)
            .keys(4 * KILLS)
            .parallel(2)
            .run();
    assertThat(report.ok()).as(report.summary()).isTrue();
    System.out.print(report.summary());
    assertThat(report.kills() + report.faults()).isGreaterThanOrEqualTo(KILLS);
    assertThat(report.faults()).as(report.summary()).isPositive();
    assertThat(report.killPoints().keySet())
        .as(report.summary())
        .anyMatch(p -> p.startsWith("lost commit answer: application: before COMMIT"))
        .anyMatch(p -> p.startsWith("connection reset: "));
    assertThat(report.file()).isNull();
    assertThat(report.database()).startsWith("jdbc:").doesNotContain("?");
    assertThat(s.count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(report.keys());
    assertThat(s.count("SELECT COUNT(*) FROM charges")).isEqualTo(report.keys());
  }

  @ParameterizedTest(name = "[{0}]")
  @MethodSource("servers")
  void aChargeOutsideAnyReceiptIsCaughtByKills(Supplier<Server> server) {
    FaultReport report =
        run(ChargeTargets.OutsideAnyReceipt.class, server.get()).kills(8).keys(16).run();
    System.out.print(report.summary());
    assertThat(report.duplicates()).as(report.summary()).isPositive();
    assertThat(report.killPoints()).containsKey("application: after INSERT INTO charges");
    assertThat(report.ok()).isFalse();
  }

  @ParameterizedTest(name = "[{0}]")
  @MethodSource("servers")
  void aChargeOutsideAnyReceiptIsCaughtByALostCommitAnswer(Supplier<Server> server) {
    FaultReport report =
        run(ChargeTargets.OutsideAnyReceipt.class, server.get())
            .faults(Fault.LOST_COMMIT_ANSWER)
            .kills(4)
            .keys(16)
            .run();
    System.out.print(report.summary());
    assertThat(report.kills()).isZero();
    assertThat(report.duplicates()).as(report.summary()).isPositive();
    assertThat(report.killPoints())
        .containsKey("lost commit answer: application: before INSERT INTO charges");
    assertThat(report.ok()).isFalse();
  }

  @ParameterizedTest(name = "[{0}]")
  @MethodSource("servers")
  void aChargeCommittedBeforeItsReceiptIsCaughtByAConnectionReset(Supplier<Server> server) {
    FaultReport report =
        run(ChargeTargets.OutsideTheReceiptsTransaction.class, server.get())
            .faults(Fault.CONNECTION_RESET)
            .kills(6)
            .keys(16)
            .run();
    System.out.print(report.summary());
    assertThat(report.kills()).isZero();
    assertThat(report.duplicates()).as(report.summary()).isPositive();
    assertThat(report.ok()).isFalse();
  }

  @Test
  void faultsBeyondKillsOnSqliteAreRefusedBeforeAnyChild(@TempDir Path dir) {
    FaultRun run =
        FaultRun.of(ChargeTarget.class, ChargeTargets.EFFECTS)
            .file(dir.resolve("store.db"))
            .faults(Fault.KILL, Fault.CONNECTION_RESET);
    assertThatThrownBy(run::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("on SQLite only kills apply");
    assertThat(dir.resolve("store.db")).doesNotExist();
    assertThatThrownBy(
            () ->
                FaultRun.of(ChargeTarget.class, ChargeTargets.EFFECTS)
                    .database("jdbc:sqlite:" + dir.resolve("x.db"), new Properties()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file(Path)");
    assertThatThrownBy(
            () ->
                FaultRun.of(ChargeTarget.class, ChargeTargets.EFFECTS)
                    .database("jdbc:postgresql://a:5432,b:5432/db", new Properties())
                    .faults(Fault.LOST_COMMIT_ANSWER)
                    .run())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one server");
  }
}
