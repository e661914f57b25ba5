package dev.onceonly.bench;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@code execute} against a raw JDBC loop doing the same SQL on the same kind of file: {@code BEGIN
 * IMMEDIATE; SELECT receipt; INSERT effect; INSERT receipt; COMMIT}, one transaction per step, each
 * thread on its own connection (so several threads meet at SQLite's file lock, under {@code
 * busy_timeout}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class ReceiptBenchmark {
  static final int HOT_KEYS = 10_000;

  @Param({"NORMAL"})
  public String sync;

  Path file;
  OnceOnly once;
  final AtomicInteger threads = new AtomicInteger();

  @Setup(Level.Trial)
  public void open() throws SQLException {
    file = BenchDb.newFile();
    once = BenchDb.open(file, sync);
    BenchDb.createRawTables(file, sync);
    try (Connection c = BenchDb.raw(file, sync)) {
      BenchDb.exec(
          c, "CREATE TABLE effects (scope TEXT NOT NULL, k TEXT NOT NULL, v INTEGER NOT NULL)");
    }
    for (int i = 0; i < HOT_KEYS; i++) {
      once.receipts()
          .execute(
              IntentKey.of("hot", "k" + i),
              "touch",
              Map.of("i", i),
              Integer.class,
              c -> effect(c, "hot", "k", 1));
    }
    try (Connection c = BenchDb.raw(file, sync)) {
      RawLoop raw = new RawLoop(c);
      for (int i = 0; i < HOT_KEYS; i++) {
        raw.step("hot", "k" + i);
      }
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    once.close();
    BenchDb.delete(file);
  }

  static Integer effect(Connection c, String scope, String key, int v) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO effects VALUES (?, ?, ?)")) {
      ps.setString(1, scope);
      ps.setString(2, key);
      ps.setInt(3, v);
      ps.executeUpdate();
    }
    return v;
  }

  /** Per-thread state: a key sequence and a raw connection of its own. */
  @State(Scope.Thread)
  public static class PerThread {
    String scope;
    int next;
    Connection raw;
    RawLoop loop;

    @Setup(Level.Trial)
    public void open(ReceiptBenchmark bench) throws SQLException {
      scope = "t" + bench.threads.incrementAndGet() + "-" + System.nanoTime();
      raw = BenchDb.raw(bench.file, bench.sync);
      loop = new RawLoop(raw);
    }

    @TearDown(Level.Trial)
    public void close() throws SQLException {
      loop.close();
      raw.close();
    }
  }

  /**
   * The raw loop, with statements prepared once as a careful hand-written loop would: on SQLite
   * ({@link #RawLoop(Connection)}) or on MariaDB ({@link #mariaDb}).
   */
  static final class RawLoop implements AutoCloseable {
    static final String FINGERPRINT = "jcs-sha256:" + "0".repeat(64);
    static final long DAY = 86_400_000L;

    /** The rows of {@code raw_key_locks} on MariaDB, as the library's V1 makes them. */
    private static final int KEY_LOCK_BUCKETS = 16_384;

    final Connection c;
    final PreparedStatement begin;
    final PreparedStatement lock;
    final PreparedStatement select;
    final PreparedStatement insertEffect;
    final PreparedStatement insertReceipt;
    final PreparedStatement commit;

    RawLoop(Connection c) throws SQLException {
      this(c, false);
    }

    /**
     * The library's step in MariaDB's SQL, on a connection in {@code READ COMMITTED}: {@code START
     * TRANSACTION}; the row lock on the key's bucket in {@code raw_key_locks} ({@code SELECT ...
     * FOR UPDATE}); the lookup; the effect; the receipt, its times from the server's UTC clock.
     */
    static RawLoop mariaDb(Connection c) throws SQLException {
      return new RawLoop(c, true);
    }

    private RawLoop(Connection c, boolean mariaDb) throws SQLException {
      this.c = c;
      begin = c.prepareStatement(mariaDb ? "START TRANSACTION" : "BEGIN IMMEDIATE");
      lock =
          mariaDb
              ? c.prepareStatement("SELECT bucket FROM raw_key_locks WHERE bucket = ? FOR UPDATE")
              : null;
      select =
          c.prepareStatement(
              "SELECT r.operation, r.fingerprint, r.result, r.created_at, r.expires_at,"
                  + " r.forget_at, (SELECT i.fingerprint FROM raw_intents i WHERE i.scope = ?"
                  + " AND i.intent_key = ?) FROM (SELECT 1 AS one) o LEFT JOIN raw_receipts r"
                  + " ON r.scope = ? AND r.intent_key = ?");
      insertEffect = c.prepareStatement("INSERT INTO effects VALUES (?, ?, 1)");
      insertReceipt =
          c.prepareStatement(
              "INSERT INTO raw_receipts (scope, intent_key, operation, fingerprint, result,"
                  + " created_at, expires_at, forget_at) VALUES (?, ?, ?, ?, ?, "
                  + (mariaDb
                      ? "UTC_TIMESTAMP(6), UTC_TIMESTAMP(6) + INTERVAL 30 DAY,"
                          + " UTC_TIMESTAMP(6) + INTERVAL 395 DAY)"
                      : "?, ?, ?)"));
      commit = c.prepareStatement("COMMIT");
    }

    String step(String scope, String key) throws SQLException {
      begin.execute();
      try {
        String result = body(scope, key);
        commit.execute();
        return result;
      } catch (SQLException e) {
        c.createStatement().execute("ROLLBACK");
        throw e;
      }
    }

    /**
     * The step's statements without its transaction: the lookup, then, for a key without a receipt,
     * the effect and the receipt; the caller begins and ends the transaction (or savepoint) around
     * it.
     */
    String body(String scope, String key) throws SQLException {
      if (lock != null) {
        lock.setInt(1, Math.floorMod((scope + '\0' + key).hashCode(), KEY_LOCK_BUCKETS));
        try (ResultSet rs = lock.executeQuery()) {
          if (!rs.next()) {
            throw new IllegalStateException("no row in raw_key_locks");
          }
        }
      }
      select.setString(1, scope);
      select.setString(2, key);
      select.setString(3, scope);
      select.setString(4, key);
      try (ResultSet rs = select.executeQuery()) {
        rs.next();
        String stored = rs.getString(3);
        if (stored != null) {
          return stored;
        }
      }
      insertEffect.setString(1, scope);
      insertEffect.setString(2, key);
      insertEffect.executeUpdate();
      insertReceipt.setString(1, scope);
      insertReceipt.setString(2, key);
      insertReceipt.setString(3, "touch");
      insertReceipt.setString(4, FINGERPRINT);
      insertReceipt.setString(5, "1");
      if (lock == null) {
        long now = System.currentTimeMillis();
        insertReceipt.setLong(6, now);
        insertReceipt.setLong(7, now + 30 * DAY);
        insertReceipt.setLong(8, now + 395 * DAY);
      }
      insertReceipt.executeUpdate();
      return "1";
    }

    @Override
    public void close() throws SQLException {
      for (PreparedStatement ps :
          new PreparedStatement[] {begin, lock, select, insertEffect, insertReceipt, commit}) {
        if (ps != null) {
          ps.close();
        }
      }
    }
  }

  @Benchmark
  public Outcome<Integer> onceonly_newKey(PerThread t) throws SQLException {
    String key = "k" + t.next++;
    return once.receipts()
        .execute(
            IntentKey.of(t.scope, key),
            "touch",
            Map.of("i", t.next),
            Integer.class,
            c -> effect(c, t.scope, key, 1));
  }

  @Benchmark
  public String raw_newKey(PerThread t) throws SQLException {
    return t.loop.step(t.scope, "k" + t.next++);
  }

  @Benchmark
  public Outcome<Integer> onceonly_repeatedKey() throws SQLException {
    int i = ThreadLocalRandom.current().nextInt(HOT_KEYS);
    return once.receipts()
        .execute(
            IntentKey.of("hot", "k" + i),
            "touch",
            Map.of("i", i),
            Integer.class,
            c -> effect(c, "hot", "k", 1));
  }

  @Benchmark
  public String raw_repeatedKey(PerThread t) throws SQLException {
    return t.loop.step("hot", "k" + ThreadLocalRandom.current().nextInt(HOT_KEYS));
  }
}
