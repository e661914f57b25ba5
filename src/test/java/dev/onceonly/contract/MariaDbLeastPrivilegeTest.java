package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.SchemaVersionException;
import dev.onceonly.StoreException;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.SendResult;
import dev.onceonly.testing.MariaDbContractDatabase;
import dev.onceonly.testing.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A user with only the grants docs/mariadb.md lists for {@code Migrations.VALIDATE} ({@code SELECT,
 * INSERT, UPDATE, DELETE} on the database) opens a store whose tables an owner (root) created, and
 * works: a receipt, a queue send, receive and ack, a schedule, an external effect. It may create
 * nothing, and an older schema is refused without trying to.
 */
class MariaDbLeastPrivilegeTest {
  private final MariaDbContractDatabase db = MariaDbContractDatabase.create();
  private final String user = "app_" + Long.toString(new Random().nextLong() >>> 1, 36);
  private HikariDataSource application;

  @BeforeEach
  void migrateAsOwnerAndCreateTheUser() {
    OnceOnly.builder().dataSource(db.pool(2)).build().close();
    db.exec(
        "CREATE USER '" + user + "'@'%' IDENTIFIED BY 'pw'",
        "GRANT SELECT, INSERT, UPDATE, DELETE ON " + db.database() + ".* TO '" + user + "'@'%'");
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(
        "jdbc:mariadb://127.0.0.1:"
            + MariaDbServer.port()
            + "/"
            + db.database()
            + "?user="
            + user
            + "&password=pw");
    config.setMaximumPoolSize(4);
    config.setMinimumIdle(0);
    application = new HikariDataSource(config);
  }

  @AfterEach
  void close() {
    if (application != null) {
      application.close();
    }
    db.exec("DROP USER IF EXISTS '" + user + "'@'%'");
    db.close();
  }

  @Test
  void theUserCannotCreateTablesItself() {
    assertThatThrownBy(
            () -> {
              try (Connection c = application.getConnection();
                  Statement s = c.createStatement()) {
                s.execute("CREATE TABLE probe (x INT)");
              }
            })
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("denied");
  }

  @Test
  void withMigrationsValidateTheUserOpensAndEveryPieceWorks() {
    try (OnceOnly once =
        OnceOnly.builder()
            .dataSource(application)
            .migrations(OnceOnly.Migrations.VALIDATE)
            .build()) {
      Outcome<String> outcome =
          once.receipts()
              .execute(
                  IntentKey.of("u-1", "charge-1"),
                  "charge",
                  Map.of("cents", 500),
                  String.class,
                  tx -> "charged");
      assertThat(outcome).isInstanceOf(Outcome.Created.class);
      SendResult sent = once.queue().send("shipping", "ship-1", Map.of("order", "o-1"));
      assertThat(sent.status()).isEqualTo(SendResult.Status.SENT);
      List<Delivery> deliveries = once.queue().receive("shipping", 10, Duration.ofSeconds(30));
      assertThat(deliveries).hasSize(1);
      assertThat(once.queue().ack(deliveries.get(0).lease()))
          .isInstanceOf(QueueResult.Completed.class);
      ClaimOutcome claim =
          once.externalEffects()
              .claim(
                  IntentKey.of("u-1", "refund-1"),
                  "refund",
                  Map.of("cents", 500),
                  Duration.ofSeconds(30));
      assertThat(claim).isInstanceOf(ClaimOutcome.Claimed.class);
    }
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = 'charge-1'"))
        .isOne();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_claims")).isOne();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_schema_version"))
        .isEqualTo(MigrationContract.MIGRATIONS.size());
  }

  @Test
  void withMigrationsValidateAnOlderSchemaIsRefusedWithoutTryingToCreate() {
    db.exec("DELETE FROM onceonly_schema_version WHERE version = " + MigrationContract.LATEST);
    assertThatThrownBy(
            () ->
                OnceOnly.builder()
                    .dataSource(application)
                    .migrations(OnceOnly.Migrations.VALIDATE)
                    .build())
        .isInstanceOf(SchemaVersionException.class)
        .hasMessageContaining("older than this library's");
  }

  @Test
  void applyingAnOlderSchemaWithoutTheCreateRightIsAStoreError() {
    db.exec("DELETE FROM onceonly_schema_version WHERE version = " + MigrationContract.LATEST);
    assertThatThrownBy(() -> OnceOnly.builder().dataSource(application).build())
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("denied");
  }
}
