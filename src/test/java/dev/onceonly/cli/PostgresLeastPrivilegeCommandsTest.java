package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.LeastPrivilegeDatabase;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator commands as an application role that may only read and write rows ({@link
 * LeastPrivilegeDatabase}): every command but a migration that has work to do runs with those
 * rights, and none of them tries to create anything.
 */
class PostgresLeastPrivilegeCommandsTest {
  private LeastPrivilegeDatabase db;

  @BeforeEach
  void storeWithAPendingIntentAndAReceipt() throws Exception {
    db = LeastPrivilegeDatabase.create();
    try (OnceOnly once =
        OnceOnly.builder()
            .dataSource(db.application())
            .migrations(OnceOnly.Migrations.VALIDATE)
            .build()) {
      once.intents().register(IntentKey.of("u-1", "later-1"), "job", Map.of());
      once.receipts()
          .execute(IntentKey.of("u-1", "charge-1"), "charge", Map.of(), String.class, tx -> "ok");
    }
  }

  @AfterEach
  void close() {
    if (db != null) {
      db.close();
    }
  }

  @Test
  void everyReadingAndRepairingCommandWorksWithRowRightsOnly() throws Exception {
    String url = db.applicationUrl();
    assertThat(
            json(CliRun.of("status", "--jdbc-url", url, "--json")).get("pendingIntents").asLong())
        .isOne();
    JsonNode pending = json(CliRun.of("pending", "--jdbc-url", url, "--json")).get("pending");
    assertThat(pending).hasSize(1);
    assertThat(pending.get(0).get("key").asText()).isEqualTo("later-1");
    CliRun show = CliRun.of("receipts", "show", "u-1", "charge-1", "--jdbc-url", url, "--json");
    assertThat(show.status()).as("%s", show).isZero();
    CliRun purge = CliRun.of("purge", "--older-than", "30d", "--jdbc-url", url, "--json");
    assertThat(purge.status()).as("%s", purge).isZero();
    CliRun migrate = CliRun.of("migrate", "--jdbc-url", url);
    assertThat(migrate.status()).as("%s", migrate).isZero();
    assertThat(migrate.out()).contains("is up to date");
    assertThat(db.ownerCount("SELECT COUNT(*) FROM app.onceonly_receipts")).isOne();
  }

  @Test
  void migratingAnOlderSchemaWithoutTheCreateRightFailsAsAStoreError() throws Exception {
    db.exec("DELETE FROM app.onceonly_schema_version WHERE version >= 13");
    CliRun migrate = CliRun.of("migrate", "--jdbc-url", db.applicationUrl());
    assertThat(migrate.status()).as("%s", migrate).isEqualTo(CliException.STORE);
    assertThat(migrate.err()).contains("permission denied").hasLineCount(1);
    CliRun pending = CliRun.of("pending", "--jdbc-url", db.applicationUrl());
    assertThat(pending.status()).as("%s", pending).isEqualTo(CliException.SCHEMA);
    assertThat(db.ownerCount("SELECT COUNT(*) FROM app.onceonly_schema_version")).isEqualTo(12);
  }

  private static JsonNode json(CliRun run) throws Exception {
    assertThat(run.status()).as("%s", run).isZero();
    return new ObjectMapper().readTree(run.out());
  }
}
