package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.Durability;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.Registration;
import dev.onceonly.ServerSettingException;
import dev.onceonly.UnstorableResultException;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.LogCapture;
import dev.onceonly.testing.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * MariaDB as operators run it: a binary log, its format, the redo log's flush setting, replicas,
 * {@code sql_mode}, the session's character sets and {@code max_allowed_packet}, on a server of
 * this class's own (its global settings are changed here) with a binary log in {@code ROW} format.
 * What the store is told and what it writes are read back through connections of the test's own.
 */
class MariaDbServerSettingsTest {
  private static MariaDbServer.Own server;

  @RegisterExtension final LogCapture log = LogCapture.of(OnceOnly.class);

  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeAll
  static void startServer() {
    server =
        MariaDbServer.own(
            "--log-bin=binlog", "--server-id=1", "--binlog-format=ROW", "--log-slave-updates");
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    server.exec(
        "SET GLOBAL binlog_format = 'ROW'",
        "SET GLOBAL innodb_flush_log_at_trx_commit = 1",
        "SET GLOBAL max_allowed_packet = 67108864");
  }

  private <T extends AutoCloseable> T closed(T resource) {
    closing.add(resource);
    return resource;
  }

  private HikariDataSource pool(String database, String initSql) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(server.url(database));
    config.setMaximumPoolSize(4);
    config.setMinimumIdle(0);
    if (initSql != null) {
      config.setConnectionInitSql(initSql);
    }
    return closed(new HikariDataSource(config));
  }

  private OnceOnly open(DataSource pool) {
    return closed(OnceOnly.builder().dataSource(pool).build());
  }

  private long count(String database, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(server.url(database));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private long tables(String database) throws SQLException {
    return count(
        database,
        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '" + database + "'");
  }

  /**
   * With the binary log in {@code STATEMENT} format every write of a {@code READ COMMITTED}
   * transaction fails with error 1665; the store refuses to open, naming the fix, and creates no
   * table. In {@code ROW} format (and {@code MIXED}) it opens and writes.
   */
  @Test
  void aBinaryLogInStatementFormatIsRefusedAtOpenWithTheFix() throws Exception {
    String fine = server.newDatabase("binlog_row");
    OnceOnly once = open(pool(fine, null));
    assertThat(
            once.receipts()
                .execute(IntentKey.of("s", "k"), "op", Map.of(), String.class, c -> "ok"))
        .isInstanceOf(Outcome.Created.class);
    server.exec("SET GLOBAL binlog_format = 'MIXED'");
    open(pool(server.newDatabase("binlog_mixed"), null));

    server.exec("SET GLOBAL binlog_format = 'STATEMENT'");
    String refused = server.newDatabase("binlog_statement");
    HikariDataSource statementPool = pool(refused, null);
    assertThatThrownBy(() -> open(statementPool))
        .isInstanceOfSatisfying(
            ServerSettingException.class,
            e -> {
              assertThat(e.setting()).isEqualTo("binlog_format");
              assertThat(e.value()).isEqualTo("STATEMENT");
            })
        .hasMessageContaining("binlog_format=ROW")
        .hasMessageContaining("MIXED");
    assertThat(tables(refused)).isZero();
  }

  /**
   * Under {@code sql_mode=ORACLE} the first migration would fail with a bare syntax error: the
   * store refuses to open, naming the mode, and creates no table.
   */
  @Test
  void sqlModeOracleIsRefusedAtOpenByName() throws Exception {
    String database = server.newDatabase("oracle_mode");
    HikariDataSource oracle = pool(database, "SET SESSION sql_mode = 'ORACLE'");
    assertThatThrownBy(() -> open(oracle))
        .isInstanceOfSatisfying(
            ServerSettingException.class, e -> assertThat(e.setting()).isEqualTo("sql_mode"))
        .hasMessageContaining("ORACLE");
    assertThat(tables(database)).isZero();
  }

  /**
   * A session in {@code latin1} (or {@code utf8mb3}) would have {@code INSERT IGNORE} store an
   * intent cut short and answer {@code Registered}: a pool whose connections are so is refused at
   * open, and a connection that becomes so after the open, or a caller's joined connection, is
   * refused on its first use, with nothing written.
   */
  @Test
  void aSessionCharacterSetOtherThanUtf8mb4IsRefusedAtOpenAndOnFirstUse() throws Exception {
    for (String names : List.of("latin1", "utf8mb3")) {
      String database = server.newDatabase("names_" + names);
      HikariDataSource wrong = pool(database, "SET NAMES " + names);
      assertThatThrownBy(() -> open(wrong))
          .isInstanceOfSatisfying(
              ServerSettingException.class,
              e -> {
                assertThat(e.setting()).isEqualTo("character_set_client");
                assertThat(e.value()).isEqualTo(names);
              })
          .hasMessageContaining("utf8mb4");
      assertThat(tables(database)).isZero();
    }

    String database = server.newDatabase("names_later");
    AtomicReference<String> names = new AtomicReference<>();
    OnceOnly once = open(new NamesDataSource(server.url(database), names));
    IntentKey first = IntentKey.of("s", "first");
    assertThat(once.intents().register(first, "op", Map.of("city", "Łódź")))
        .isInstanceOf(Registration.Registered.class);
    for (String wrong : List.of("latin1", "utf8mb3")) {
      names.set(wrong);
      IntentKey key = IntentKey.of("s", "k-" + wrong);
      assertThatThrownBy(() -> once.intents().register(key, "op", Map.of("city", "Łódź 🏙")))
          .isInstanceOf(ServerSettingException.class)
          .hasMessageContaining(wrong);
    }
    names.set(null);
    try (Connection caller = DriverManager.getConnection(server.url(database));
        Statement s = caller.createStatement()) {
      s.execute("SET NAMES latin1");
      caller.setAutoCommit(false);
      assertThatThrownBy(
              () ->
                  once.receipts()
                      .execute(
                          caller,
                          IntentKey.of("s", "joined"),
                          "op",
                          Map.of("city", "Łódź"),
                          String.class,
                          c -> "Łódź"))
          .isInstanceOf(ServerSettingException.class)
          .hasMessageContaining("latin1");
      caller.rollback();
    }
    assertThat(count(database, "SELECT COUNT(*) FROM onceonly_intents")).isEqualTo(1);
    assertThat(count(database, "SELECT COUNT(*) FROM onceonly_receipts")).isZero();
    assertThat(once.intents().find(first)).isPresent();
  }

  /**
   * A result larger than {@code max_allowed_packet} is refused with an error that names the limit,
   * nothing written, and the store goes on (it was reported as a lost connection, "Socket error").
   */
  @Test
  void aResultOverMaxAllowedPacketIsRefusedNamingTheLimit() throws Exception {
    server.exec("SET GLOBAL max_allowed_packet = 1048576");
    String database = server.newDatabase("packet");
    OnceOnly once = open(pool(database, null));
    String big = "x".repeat(1_200_000);
    assertThatThrownBy(
            () ->
                once.receipts()
                    .execute(IntentKey.of("s", "big"), "op", Map.of(), String.class, c -> big))
        .isInstanceOf(UnstorableResultException.class)
        .hasMessageContaining("max_allowed_packet")
        .hasMessageContaining("1048576");
    assertThat(
            once.receipts()
                .execute(IntentKey.of("s", "small"), "op", Map.of(), String.class, c -> "ok"))
        .isInstanceOf(Outcome.Created.class);
    assertThat(count(database, "SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(1);
  }

  /**
   * {@code innodb_flush_log_at_trx_commit=3} flushes at every commit as 1 does, and is crash-safe;
   * a server with no replica attached warns of no failover, once; a replica attached is reported,
   * with the asynchronous replication it is on.
   */
  @Test
  void durabilityReportsWhatTheServersSettingsSay() throws Exception {
    {
      server.exec("SET GLOBAL innodb_flush_log_at_trx_commit = 3");
      String database = server.newDatabase("durable3");
      OnceOnly once = open(pool(database, null));
      Durability three = once.maintenance().durability();
      assertThat(three.crashSafe()).isTrue();
      assertThat(three.settings()).containsEntry("innodb_flush_log_at_trx_commit", "3");
      assertThat(three.risks()).isEmpty();
      assertThat(three.settings()).containsEntry("replicas", "0");

      server.exec("SET GLOBAL innodb_flush_log_at_trx_commit = 1");
      open(pool(server.newDatabase("durable1a"), null));
      open(pool(server.newDatabase("durable1b"), null));
      assertThat(warnings()).isEmpty();

      try (MariaDbServer.Own replica = MariaDbServer.own("--server-id=2")) {
        replica.exec(
            "CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = "
                + server.port()
                + ", MASTER_USER = 'root', MASTER_USE_GTID = no",
            "START SLAVE");
        Eventually.await(Duration.ofSeconds(60), "the replica attached", () -> replicas() == 1);
        OnceOnly replicated = open(pool(server.newDatabase("replicated"), null));
        Durability d = replicated.maintenance().durability();
        assertThat(d.settings()).containsEntry("replicas", "1");
        assertThat(String.join(" ", d.risks())).contains("1 replica").contains("asynchronous");
        assertThat(d.failoverSafe()).isFalse();
        assertThat(warnings()).hasSize(1); // one line per open, saying all of it
        assertThat(warnings().get(0)).contains("1 replica, on asynchronous replication");

        server.exec("SET GLOBAL rpl_semi_sync_master_enabled = ON");
        replica.exec(
            "SET GLOBAL rpl_semi_sync_slave_enabled = ON",
            "STOP SLAVE IO_THREAD",
            "START SLAVE IO_THREAD");
        Eventually.await(
            Duration.ofSeconds(60),
            "the replica acknowledging semi-synchronously",
            () -> semiSyncClients() == 1);
        Durability semi =
            open(pool(server.newDatabase("semisync"), null)).maintenance().durability();
        assertThat(semi.synchronousStandbys()).isEqualTo(1);
        assertThat(semi.failoverSafe()).isFalse();
        assertThat(String.join(" ", semi.risks()))
            .contains("semi-synchronous replication (1 acknowledging)")
            .contains("falls back to asynchronous after rpl_semi_sync_master_timeout=10000 ms");
        server.exec("SET GLOBAL rpl_semi_sync_master_enabled = OFF");
        replica.exec("STOP SLAVE");
      }
    }
  }

  /** The warnings logged in this test, their parameters filled in. */
  private List<String> warnings() {
    return log.at(Level.WARNING).stream()
        .map(r -> new java.text.MessageFormat(r.getMessage()).format(r.getParameters()))
        .toList();
  }

  private static long semiSyncClients() {
    return serverNumber(
        "SELECT variable_value FROM information_schema.global_status"
            + " WHERE variable_name = 'RPL_SEMI_SYNC_MASTER_CLIENTS'");
  }

  private static long replicas() {
    return serverNumber(
        "SELECT COUNT(*) FROM information_schema.processlist WHERE command LIKE 'Binlog Dump%'");
  }

  /** The number {@code sql} reads on the primary, or -1 where it reads none or fails. */
  private static long serverNumber(String sql) {
    try (Connection c = DriverManager.getConnection(server.url(""));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : -1;
    } catch (SQLException e) {
      return -1;
    }
  }

  /**
   * The driver's own data source, whose new connections run {@code SET NAMES} with the value held,
   * if any: a connection made after the store opened can be in another character set than the
   * first.
   */
  private static final class NamesDataSource extends MariaDbDataSource {
    private final AtomicReference<String> names;

    NamesDataSource(String url, AtomicReference<String> names) throws SQLException {
      super(url);
      this.names = names;
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection c = super.getConnection();
      String set = names.get();
      if (set != null) {
        try (PreparedStatement ps = c.prepareStatement("SET NAMES " + set)) {
          ps.execute();
        }
      }
      return c;
    }
  }
}
