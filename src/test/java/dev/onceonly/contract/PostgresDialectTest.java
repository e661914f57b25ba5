package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.StoreException;
import dev.onceonly.sql.Dialect;
import dev.onceonly.testing.PostgresContractDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What only PostgreSQL has: the dialect read from the pool's metadata (and its override), the
 * server's clock as the default time source, and transactions the server aborts for a serialization
 * failure run again with the earlier failures kept.
 */
class PostgresDialectTest {
  private final PostgresContractDatabase pg = PostgresContractDatabase.create();

  @AfterEach
  void closePools() {
    pg.close();
  }

  @Test
  void theDialectComesFromTheMetadataAndCanBeOverridden() {
    try (OnceOnly once = pg.builder().build()) {
      assertThat(once.dialect()).isEqualTo(Dialect.POSTGRESQL);
    }
    // Told it is SQLite, it speaks SQLite to PostgreSQL: the override is obeyed, and fails loudly.
    assertThatThrownBy(() -> pg.builder().dialect(Dialect.SQLITE).build())
        .isInstanceOf(StoreException.class);
  }

  @Test
  void byDefaultTimeIsTheServersClock() {
    try (OnceOnly once = pg.builder().build()) {
      once.intents().register(IntentKey.of("s", "k"), "op", Map.of());
    }
    // Stored as an instant, whatever the session's zone: within a few seconds of the server's now.
    assertThat(
            pg.count(
                "SELECT COUNT(*) FROM onceonly_intents"
                    + " WHERE ABS(EXTRACT(EPOCH FROM (clock_timestamp() - created_at))) < 5"))
        .isOne();
  }

  @Test
  void aSerializationFailureRunsTheStepAgainAndOnlyTheLastRunCommits() throws SQLException {
    pg.exec("CREATE TABLE effects (note TEXT NOT NULL)");
    AtomicInteger runs = new AtomicInteger();
    try (OnceOnly once = pg.builder().build()) {
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
                      abortAsSerializationFailure(c);
                    }
                    return run;
                  });
      assertThat(outcome.resultOrThrow()).isEqualTo(3);
    }
    assertThat(pg.strings("SELECT note FROM effects")).containsExactly("run 3");
    assertThat(pg.count("SELECT COUNT(*) FROM onceonly_receipts")).isOne();
  }

  @Test
  void aStepThatKeepsFailingGivesUpWithTheEarlierFailuresAttached() {
    AtomicInteger runs = new AtomicInteger();
    List<Long> starts = new CopyOnWriteArrayList<>();
    try (OnceOnly once = pg.builder().build()) {
      assertThatThrownBy(
              () ->
                  once.receipts()
                      .execute(
                          IntentKey.of("s", "doomed"),
                          "op",
                          Map.of(),
                          Integer.class,
                          c -> {
                            starts.add(System.nanoTime());
                            runs.incrementAndGet();
                            abortAsSerializationFailure(c);
                            return 0;
                          }))
          .isInstanceOf(SQLException.class)
          .satisfies(
              e -> {
                assertThat(((SQLException) e).getSQLState()).isEqualTo("40001");
                assertThat(e.getSuppressed()).hasSize(4);
              });
    }
    assertThat(runs).hasValue(5);
    assertThat(pg.count("SELECT COUNT(*) FROM onceonly_receipts")).isZero();
    // Each run again came after a pause that grows: at least 1, 2, 4 and 8 ms after the last began
    // (a run that fails at once takes a round trip or two; without the pauses these gaps are that).
    for (int i = 1; i < starts.size(); i++) {
      assertThat(starts.get(i) - starts.get(i - 1))
          .as("from run %d to run %d", i, i + 1)
          .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1L << (i - 1)));
    }
  }

  private static void insert(Connection c, String note) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO effects (note) VALUES (?)")) {
      ps.setString(1, note);
      ps.executeUpdate();
    }
  }

  /** Makes the server abort the transaction with SQLSTATE 40001, as a serialization failure. */
  private static void abortAsSerializationFailure(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("DO $$ BEGIN RAISE EXCEPTION 'simulated conflict' USING ERRCODE = '40001'; END $$");
    }
  }
}
