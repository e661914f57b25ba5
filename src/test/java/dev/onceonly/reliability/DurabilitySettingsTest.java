package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.Durability;
import dev.onceonly.DurabilityException;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.LogCapture;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code build()} reads of the server's durability and does with it, on the embedded
 * PostgreSQL (started with {@code fsync=off} and {@code synchronous_commit=off}, no standby: the
 * worst case) and on SQLite files. The case with a synchronous standby runs on a Patroni cluster
 * ({@code dev.onceonly.failover.FailoverTest}).
 */
class DurabilitySettingsTest {
  @RegisterExtension final LogCapture log = LogCapture.of(OnceOnly.class);

  @TempDir Path dir;

  @Test
  void theEmbeddedServerIsNeitherCrashNorFailoverSafeAndBuildSaysSoOnceAtWarning() {
    String db = EmbeddedPg.newDatabase("durability_warn");
    try (HikariDataSource pool = EmbeddedPg.pool(db, 2);
        OnceOnly once = OnceOnly.builder().dataSource(pool).build()) {
      Durability d = once.maintenance().durability();
      assertThat(d.crashSafe()).isFalse();
      assertThat(d.failoverSafe()).isFalse();
      assertThat(d.synchronousStandbys()).isZero();
      assertThat(d.settings())
          .containsEntry("fsync", "off")
          .containsEntry("synchronous_commit", "off")
          .containsEntry("synchronous_standby_names", "");
      assertThat(d.risks())
          .hasSize(3)
          .anySatisfy(r -> assertThat(r).startsWith("fsync is off"))
          .anySatisfy(r -> assertThat(r).startsWith("synchronous_commit is off"))
          .anySatisfy(r -> assertThat(r).startsWith("no synchronous standby"));
      assertThat(log.at(Level.WARNING)).hasSize(1);
      String message = formatted(log.at(Level.WARNING).get(0));
      assertThat(message)
          .contains("receipts already answered may be lost")
          .contains("synchronous_commit is off")
          .contains("a failover to a standby may lose receipts");
    }
  }

  /** A setting of the database (or role) is what the library's sessions commit with. */
  @Test
  void aDatabasesOwnSynchronousCommitIsTheOneRead() throws SQLException {
    String db = EmbeddedPg.newDatabase("durability_db_setting");
    try (Connection c = EmbeddedPg.connect("postgres");
        Statement s = c.createStatement()) {
      s.execute("ALTER DATABASE " + db + " SET synchronous_commit = on");
    }
    try (HikariDataSource pool = EmbeddedPg.pool(db, 2);
        OnceOnly once = OnceOnly.builder().dataSource(pool).build()) {
      Durability d = once.maintenance().durability();
      assertThat(d.settings()).containsEntry("synchronous_commit", "on");
      assertThat(d.risks()).noneMatch(r -> r.startsWith("synchronous_commit is off"));
      assertThat(d.crashSafe()).isFalse(); // fsync is still off
    }
  }

  @Test
  void requireSynchronousReplicationRefusesTheServerWithoutAStandbyAndCreatesNoTable()
      throws SQLException {
    String db = EmbeddedPg.newDatabase("durability_require");
    try (HikariDataSource pool = EmbeddedPg.pool(db, 2)) {
      assertThatThrownBy(
              () -> OnceOnly.builder().dataSource(pool).requireSynchronousReplication(true).build())
          .isInstanceOf(DurabilityException.class)
          .hasMessageContaining("requireSynchronousReplication is set")
          .hasMessageContaining("no synchronous standby (synchronous_standby_names is empty)")
          .satisfies(
              e -> assertThat(((DurabilityException) e).durability().failoverSafe()).isFalse());
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT count(*) FROM information_schema.tables"
                      + " WHERE table_name LIKE 'onceonly%'")) {
        rs.next();
        assertThat(rs.getLong(1)).as("tables created by a refused build").isZero();
      }
    }
  }

  @Test
  void aSqliteFileOnFullIsCrashSafeAndLogsNothing() {
    Path file = dir.resolve("full.db");
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      once.receipts()
          .execute(IntentKey.of("u-1", "k-1"), "op", Map.of(), String.class, tx -> "done");
      Durability d = once.maintenance().durability();
      assertThat(d.crashSafe()).isTrue();
      assertThat(d.failoverSafe()).isFalse();
      assertThat(d.settings()).containsEntry("synchronous", "FULL");
      assertThat(d.risks()).isEmpty();
    }
    assertThat(log.at(Level.WARNING)).isEmpty();
  }

  @Test
  void aSqliteFileOnNormalSaysWhatPowerLossMayLose() {
    try (OnceOnly once =
        OnceOnly.builder()
            .sqlite(dir.resolve("normal.db"))
            .synchronous(OnceOnly.Synchronous.NORMAL)
            .build()) {
      Durability d = once.maintenance().durability();
      assertThat(d.crashSafe()).isFalse();
      assertThat(d.risks()).singleElement().asString().startsWith("synchronous is NORMAL");
    }
  }

  @Test
  void aSqliteFileHasNoStandbySoRequiringOneIsRefusedBeforeAnyTableIsCreated() {
    Path file = dir.resolve("refused.db");
    assertThatThrownBy(
            () -> OnceOnly.builder().sqlite(file).requireSynchronousReplication(true).build())
        .isInstanceOf(DurabilityException.class)
        .hasMessageContaining("requireSynchronousReplication is set");
    assertThat(Db.count(file, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'onceonly%'"))
        .as("tables created by a refused build")
        .isZero();
  }

  private static String formatted(LogRecord r) {
    return java.text.MessageFormat.format(r.getMessage(), r.getParameters());
  }
}
