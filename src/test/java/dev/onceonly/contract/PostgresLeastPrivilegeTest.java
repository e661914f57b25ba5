package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.Outcome;
import dev.onceonly.SchemaVersionException;
import dev.onceonly.StoreException;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.SendResult;
import dev.onceonly.testing.LeastPrivilegeDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An application role with only the rights docs/postgresql.md lists opens a store whose schema an
 * owner migrated, and works: a receipt, a queue send, receive and ack. The schema {@code app} is
 * owned by {@code postgres}; the role may not create anything anywhere in the database.
 */
class PostgresLeastPrivilegeTest {
  private LeastPrivilegeDatabase db;
  private String role;
  private HikariDataSource application;

  @BeforeEach
  void migrateAsOwnerAndCreateTheRole() throws SQLException {
    db = LeastPrivilegeDatabase.create();
    role = db.role();
    application = db.application();
  }

  @AfterEach
  void close() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void theRoleCannotCreateTablesItself() {
    assertThatThrownBy(
            () -> {
              try (Connection c = application.getConnection();
                  Statement s = c.createStatement()) {
                s.execute("CREATE TABLE app.probe (x INT)");
              }
            })
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("permission denied");
  }

  @Test
  void theDefaultOpenFindsTheSchemaCurrentAndNeedsNoCreateRight() {
    works(b -> {});
  }

  @Test
  void withMigrationsValidateTheRoleOpensAndWorks() {
    works(b -> b.migrations(OnceOnly.Migrations.VALIDATE));
  }

  @Test
  void withMigrationsValidateAnOlderSchemaIsRefusedWithoutTryingToCreate() throws SQLException {
    exec("DELETE FROM app.onceonly_schema_version WHERE version = " + MigrationContract.LATEST);
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
  void applyingAnOlderSchemaWithoutTheCreateRightIsAStoreError() throws SQLException {
    exec("DELETE FROM app.onceonly_schema_version WHERE version = " + MigrationContract.LATEST);
    assertThatThrownBy(() -> OnceOnly.builder().dataSource(application).build())
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("permission denied");
  }

  @Test
  void theQueueNeedsNoSequenceGrant() throws SQLException {
    // onceonly_messages.id is an identity column: inserting needs INSERT on the table only
    assertThat(
            ownerCount(
                "SELECT COUNT(*) FROM information_schema.usage_privileges"
                    + " WHERE object_type = 'SEQUENCE' AND grantee = '"
                    + role
                    + "'"))
        .isZero();
    works(b -> b.migrations(OnceOnly.Migrations.VALIDATE));
  }

  private void works(Consumer<OnceOnlyBuilder> settings) {
    OnceOnlyBuilder builder = OnceOnly.builder().dataSource(application);
    settings.accept(builder);
    try (OnceOnly once = builder.build()) {
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
    }
    assertThat(
            ownerCount("SELECT COUNT(*) FROM app.onceonly_receipts WHERE intent_key = 'charge-1'"))
        .isOne();
    assertThat(ownerCount("SELECT COUNT(*) FROM app.onceonly_messages")).isZero();
    assertThat(ownerCount("SELECT COUNT(*) FROM app.onceonly_schema_version"))
        .isEqualTo(MigrationContract.MIGRATIONS.size());
  }

  private void exec(String sql) throws SQLException {
    db.exec(sql);
  }

  private long ownerCount(String sql) {
    return db.ownerCount(sql);
  }
}
