package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.testing.SqliteContractDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code migrate} and {@code purge} say how far they are on stderr, per script and per batch of a
 * store that needs several, and {@code --json} still prints one document on stdout.
 */
class ProgressTest {
  @TempDir Path dir;

  @Test
  void migrateReportsEachScriptAndPurgeEachBatchOnStderr() throws Exception {
    SqliteContractDatabase db = SqliteContractDatabase.in(dir);
    String file = db.file().toString();
    CliRun migrate = CliRun.of("migrate", "--db", file);
    assertThat(migrate.status()).as("%s", migrate).isZero();
    assertThat(migrate.out()).contains("from version 0 to 18");
    assertThat(migrate.err().lines())
        .containsExactly(
            "migrate: applying schema version 1",
            "migrate: applying schema version 2",
            "migrate: applying schema version 3",
            "migrate: applying schema version 4",
            "migrate: applying schema version 5",
            "migrate: applying schema version 6",
            "migrate: applying schema version 7",
            "migrate: applying schema version 8",
            "migrate: applying schema version 9",
            "migrate: applying schema version 10",
            "migrate: applying schema version 11",
            "migrate: applying schema version 12",
            "migrate: applying schema version 13",
            "migrate: applying schema version 14",
            "migrate: applying schema version 15",
            "migrate: applying schema version 16",
            "migrate: applying schema version 17",
            "migrate: applying schema version 18");

    long old = Instant.now().minus(Duration.ofDays(60)).toEpochMilli();
    long recent = Instant.now().toEpochMilli();
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO onceonly_rejections (delivery_id, reason, body, body_bytes, created_at)"
                  + " VALUES (?, 'bad', '{', 1, ?)")) {
        for (int i = 0; i < 2_501; i++) {
          ps.setString(1, "d-" + i);
          ps.setLong(2, i == 2_500 ? recent : old);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO onceonly_dead_letters (queue, message_key, fingerprint, payload,"
                  + " attempts, last_error, created_at, dead_at) VALUES ('q', ?, 'f', '{}', 3,"
                  + " 'no', ?, ?)")) {
        for (int i = 0; i < 1_200; i++) {
          ps.setString(1, "m-" + i);
          ps.setLong(2, old);
          ps.setLong(3, old);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      c.commit();
    }

    CliRun purge = CliRun.of("purge", "--older-than", "30d", "--json", "--db", file);
    assertThat(purge.status()).as("%s", purge).isZero();
    JsonNode doc = new ObjectMapper().readTree(purge.out());
    assertThat(doc.get("rejectionsDeleted").asLong()).isEqualTo(2_500);
    assertThat(doc.get("deadLettersDeleted").asLong()).isEqualTo(1_200);
    assertThat(purge.err().lines())
        .containsExactly(
            "purge: rejections: 1000 so far",
            "purge: rejections: 2000 so far",
            "purge: rejections: 2500 so far",
            "purge: dead letters: 1000 so far",
            "purge: dead letters: 1200 so far");
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_rejections")).isOne();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();

    CliRun again = CliRun.of("purge", "--older-than", "30d", "--db", file);
    assertThat(again.status()).as("%s", again).isZero();
    assertThat(again.err()).as("one batch: no progress lines").isEmpty();
    assertThat(again.out()).containsPattern("(?m)^rejectionsDeleted +0$");
  }
}
