package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.queue.Delivery;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.ContractDatabases;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;

/**
 * What the queue contract suites share: a new empty database per test from the run's {@link
 * ContractDatabases} entry (each suite is a {@code @ParameterizedClass} over some of them), an
 * instance on it with a clock that stands still, reopening, and the {@code effects} table that
 * effects write to (deliberately without a unique constraint, so that only the receipts keep an
 * effect from committing twice).
 */
public abstract class QueueContractSupport {
  /** Where the fixed clock starts. */
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** The database this run of the suite is on, one of {@link ContractDatabases}. */
  @Parameter protected ContractDatabases.Factory database;

  /** Where a SQLite database of this test has its file. */
  @TempDir protected Path dir;

  /** The database under test. */
  protected ContractDatabase db;

  /** The clock of {@link #once}, unless a test reopened with another. */
  protected MutableClock clock;

  /** The instance under test. */
  protected OnceOnly once;

  @BeforeEach
  final void openDatabase() {
    db = database.create(dir);
    clock = new MutableClock(T0);
    once = db.open(clock);
    db.exec("CREATE TABLE effects (message_key VARCHAR(300) NOT NULL, holder VARCHAR(100))");
  }

  @AfterEach
  final void closeDatabase() throws Exception {
    if (once != null) {
      once.close();
    }
    if (db instanceof AutoCloseable pools) {
      pools.close(); // a PostgreSQL schema's connection pools, after the instances on them
    }
  }

  /** Closes the instance and opens a new one on the same database and clock. */
  protected OnceOnly reopen() {
    return reopen(clock);
  }

  /** Closes the instance and opens a new one on the same database with {@code source}. */
  protected OnceOnly reopen(InstantSource source) {
    once.close();
    once = null;
    once = db.open(source);
    return once;
  }

  /** Returns the one delivery of a receive. */
  static Delivery only(List<Delivery> deliveries) {
    assertThat(deliveries).hasSize(1);
    return deliveries.get(0);
  }

  /**
   * The effect of a message, made exactly once through a receipts step joined to {@code tx}: an
   * {@code effects} row naming who made it. The intent is the message's key; {@code holder} is not
   * part of the arguments, so every holder asks for the same intent.
   */
  protected Outcome<String> recordEffect(Connection tx, String key, String holder)
      throws SQLException {
    return recordEffect(once, tx, key, holder);
  }

  /** As {@link #recordEffect(Connection, String, String)}, through another instance. */
  static Outcome<String> recordEffect(OnceOnly instance, Connection tx, String key, String holder)
      throws SQLException {
    return instance
        .receipts()
        .execute(
            tx,
            IntentKey.of("effects", key),
            "record_effect",
            Map.of("key", key),
            String.class,
            c -> insertEffect(c, key, holder));
  }

  /** Inserts an {@code effects} row (without a receipt). */
  static String insertEffect(Connection c, String key, String holder) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO effects (message_key, holder) VALUES (?, ?)")) {
      ps.setString(1, key);
      ps.setString(2, holder);
      ps.executeUpdate();
    }
    return holder;
  }

  /** Counts the rows of a queue's messages table, on a fresh connection. */
  protected long messages(String queue) {
    return db.count("SELECT COUNT(*) FROM onceonly_messages WHERE queue = ?", queue);
  }

  /** Counts effect rows, on a fresh connection. */
  protected long effects() {
    return db.count("SELECT COUNT(*) FROM effects");
  }

  /** Counts message keys with more than one effect row, on a fresh connection. */
  protected long duplicatedEffects() {
    return db.count(
        "SELECT COUNT(*) FROM (SELECT message_key FROM effects GROUP BY message_key"
            + " HAVING COUNT(*) > 1) d");
  }
}
