package dev.onceonly.external;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.ContractDatabases;
import dev.onceonly.testing.FakeProvider;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.SqliteContractDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;

/**
 * What the external-effect tests share: a database, a clock, a provider, row reads. Each test class
 * is a {@code @ParameterizedClass} over {@link ContractDatabases#everyDialect()}: a SQLite file in
 * the test's {@code @TempDir}, an empty PostgreSQL schema, then an empty MariaDB database, so the
 * same tests prove the same store behaviour on every dialect.
 */
abstract class ExternalTestSupport {
  static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  static final Duration LEASE = Duration.ofSeconds(30);

  /** An operation whose provider does not deduplicate: never repeated without reconciliation. */
  static final String CHARGE = "charge";

  /** An operation declared safe to repeat: its provider deduplicates by the downstream key. */
  static final String CHARGE_SAFE = "charge_idempotent";

  static final Map<String, Object> ARGS = Map.of("amount", 1200, "currency", "EUR");
  static final String BODY = "{\"amount\":1200,\"currency\":\"EUR\"}";

  /** A policy with no backoff jitter worth waiting for: 1 s base, 5 attempts, 1 h. */
  static final RetryPolicy POLICY =
      RetryPolicy.builder()
          .maxAttempts(5)
          .baseDelay(Duration.ofSeconds(1))
          .maxDelay(Duration.ofSeconds(10))
          .build();

  /** The database this run of the test class is on, one of {@link ContractDatabases}. */
  @Parameter ContractDatabases.Factory database;

  @TempDir Path dir;
  final MutableClock clock = new MutableClock(START);

  /** The database of this test. */
  ContractDatabase db;

  /** Returns a new, empty database for one test, made by this run's {@link #database}. */
  ContractDatabase newDatabase() {
    return database.create(dir);
  }

  @BeforeEach
  final void openDatabase() {
    db = newDatabase();
  }

  @AfterEach
  final void closePools() throws Exception {
    if (db instanceof AutoCloseable pools) {
      pools.close();
    }
  }

  /** The SQLite file of a test that runs on SQLite only ({@link ClaimCrashTest}). */
  Path file() {
    return ((SqliteContractDatabase) db).file();
  }

  OnceOnly open() {
    return db.builder().clock(clock).safeToRepeat(CHARGE_SAFE).build();
  }

  static Claim claimed(ClaimOutcome outcome) {
    assertThat(outcome).isInstanceOf(ClaimOutcome.Claimed.class);
    return ((ClaimOutcome.Claimed) outcome).claim();
  }

  /** Reads the claim row of {@code key} through a fresh connection, as a person would. */
  Map<String, Object> row(IntentKey key) {
    try (Connection c = db.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT * FROM onceonly_claims WHERE scope = ? AND intent_key = ?")) {
      ps.setString(1, key.scope());
      ps.setString(2, key.key());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("a claim row for %s", key).isTrue();
        ResultSetMetaData md = rs.getMetaData();
        Map<String, Object> out = new HashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          out.put(md.getColumnName(i), rs.getObject(i));
        }
        return out;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Returns a number column, or a timestamp column as epoch millis, whatever the dialect. */
  static long num(Map<String, Object> row, String column) {
    Object v = row.get(column);
    if (v instanceof java.sql.Timestamp t) {
      return t.toInstant().toEpochMilli(); // PostgreSQL's timestamptz, read as an instant
    }
    return ((Number) v).longValue();
  }

  long claimRows() {
    return db.count("SELECT COUNT(*) FROM onceonly_claims");
  }

  /** No downstream key reached the provider as an applied effect more than once. */
  static void assertNoEffectTwice(FakeProvider provider) {
    assertThat(provider.effectsByKey().values()).allMatch(n -> n == 1);
  }
}
