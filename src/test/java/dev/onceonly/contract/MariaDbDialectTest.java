package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.Registration;
import dev.onceonly.sql.Dialect;
import dev.onceonly.testing.MariaDbContractDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What MariaDB does differently from PostgreSQL, each point against the build's own server: key
 * collation, retried deadlocks and lock wait timeouts, instants in {@code DATETIME(6)} whatever the
 * session's zone, and keys longer than the key columns refused before anything is written.
 */
class MariaDbDialectTest {
  private final MariaDbContractDatabase db = MariaDbContractDatabase.create();

  @AfterEach
  void closePools() {
    db.close();
  }

  @Test
  void theDialectComesFromTheMetadata() {
    try (OnceOnly once = db.builder().build()) {
      assertThat(once.dialect()).isEqualTo(Dialect.MARIADB);
    }
  }

  /**
   * Generated keys from pieces that a case- or accent-insensitive, or a space-padding, collation
   * would take for one another; the reference is Java's {@link String#equals}: a key registers as
   * new exactly when Java has not seen it, and every key reads back exactly as written.
   */
  @Test
  void keysThatDifferOnlyInCaseAccentsOrTrailingSpacesStayDistinct() {
    String[] pieces = {
      "a", "A", "á", "Á", "ä", "a\u0301", "ß", "ss", "SS", "e", "é", " ", "ǅ", "ǆ"
    };
    Random random = new Random(29);
    Map<String, Boolean> seen = new HashMap<>();
    List<String> mismatches = new ArrayList<>();
    try (OnceOnly once = db.builder().keyPattern("[^\\s].{0,40}").build()) {
      for (int i = 0; i < 400; i++) {
        StringBuilder key = new StringBuilder("k");
        for (int n = 1 + random.nextInt(4); n > 0; n--) {
          key.append(pieces[random.nextInt(pieces.length)]);
        }
        String k = key.toString();
        boolean fresh = seen.put(k, Boolean.TRUE) == null;
        Registration r = once.intents().register(IntentKey.of("s", k), "op", Map.of("k", k));
        boolean registered = r instanceof Registration.Registered;
        if (registered != fresh || r instanceof Registration.Conflict) {
          mismatches.add("[" + k + "] fresh=" + fresh + " got " + r.getClass().getSimpleName());
        }
      }
    }
    assertThat(mismatches).isEmpty();
    assertThat(db.strings("SELECT intent_key FROM onceonly_intents"))
        .containsExactlyInAnyOrderElementsOf(seen.keySet());
  }

  @Test
  void aKeyLongerThanTheKeyColumnIsRefusedAndNothingIsWritten() {
    String longKey = "k".repeat(256);
    try (OnceOnly once = db.builder().keyPattern("k{1,1000}").build()) {
      assertThatThrownBy(() -> once.intents().register(IntentKey.of("s", longKey), "op", Map.of()))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("at most 255 characters");
      once.intents().register(IntentKey.of("s", longKey.substring(1)), "op", Map.of());
    }
    assertThat(db.strings("SELECT intent_key FROM onceonly_intents"))
        .containsExactly(longKey.substring(1));
  }

  @Test
  void aDeadlockRunsTheStepAgainAndOnlyTheLastRunCommits() throws SQLException {
    assertRunsAgainOn("'40001' SET MYSQL_ERRNO = 1213");
  }

  @Test
  void aLockWaitTimeoutRunsTheStepAgainAndOnlyTheLastRunCommits() throws SQLException {
    assertRunsAgainOn("'HY000' SET MYSQL_ERRNO = 1205");
  }

  private void assertRunsAgainOn(String signal) throws SQLException {
    db.exec("CREATE TABLE effects (note VARCHAR(20) NOT NULL)");
    AtomicInteger runs = new AtomicInteger();
    try (OnceOnly once = db.builder().build()) {
      Outcome<Integer> outcome =
          once.receipts()
              .execute(
                  IntentKey.of("s", "retried"),
                  "op",
                  Map.of(),
                  Integer.class,
                  c -> {
                    int run = runs.incrementAndGet();
                    insert(c, "run " + run);
                    if (run < 3) {
                      try (Statement s = c.createStatement()) {
                        s.execute("SIGNAL SQLSTATE " + signal);
                      }
                    }
                    return run;
                  });
      assertThat(outcome.resultOrThrow()).isEqualTo(3);
    }
    assertThat(db.strings("SELECT note FROM effects")).containsExactly("run 3");
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts")).isOne();
  }

  /**
   * The instance's sessions run at {@code time_zone = '+12:45'}, the reader's at {@code -05:00}: an
   * instant stored through a session's zone ({@code TIMESTAMP}, or a binding that converts) would
   * read back hours off in the other. The column holds the UTC wall time, the same for every
   * reader.
   */
  @Test
  void instantsAreStoredAsUtcWhateverTheSessionsZone() throws SQLException {
    Instant at = Instant.parse("2026-03-29T01:30:00.123Z"); // a DST change in Europe, for luck
    try (OnceOnly once = db.builder().clock(InstantSource.fixed(at)).build()) {
      once.intents().register(IntentKey.of("s", "k"), "op", Map.of());
    }
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("SET time_zone = '-05:00'");
      try (java.sql.ResultSet rs =
          s.executeQuery("SELECT CAST(created_at AS CHAR) FROM onceonly_intents")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("2026-03-29 01:30:00.123000");
      }
    }
    try (OnceOnly once = db.builder().build()) {
      once.intents().register(IntentKey.of("s", "now"), "op", Map.of());
    }
    assertThat(
            db.count(
                "SELECT COUNT(*) FROM onceonly_intents WHERE intent_key = 'now'"
                    + " AND ABS(TIMESTAMPDIFF(SECOND, created_at, UTC_TIMESTAMP())) < 60"))
        .isOne();
  }

  private static void insert(Connection c, String note) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO effects (note) VALUES (?)")) {
      ps.setString(1, note);
      ps.executeUpdate();
    }
  }
}
