package dev.onceonly.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.testing.EmbeddedPg;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@code execute} (new keys) and queue send+receive+ack on PostgreSQL, each next to a raw JDBC loop
 * running the same SQL on tables of the same shape ({@code raw_} prefix) in the same database.
 *
 * <p>The library goes through a HikariCP pool with one connection per benchmark thread, the raw
 * loop holds one connection per thread with its statements prepared once. The raw receipt step is
 * the library's: lock the key ({@code pg_advisory_xact_lock}), look up, insert the effect, insert
 * the receipt, commit. The server is {@link PostgresBenchMain}'s (one for the whole run, URL in
 * {@code -Donceonly.bench.pg}), or an embedded one started in this JVM.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class PostgresBenchmark {
  static final int BATCH = 100;
  static final String FINGERPRINT = "jcs-sha256:" + "0".repeat(64);
  static final ObjectMapper MAPPER = new ObjectMapper();
  static final AtomicInteger TRIALS = new AtomicInteger();

  String url;
  String prefix;
  HikariDataSource pool;
  OnceOnly once;
  final AtomicInteger threads = new AtomicInteger();

  @Setup(Level.Trial)
  public void open(org.openjdk.jmh.infra.BenchmarkParams params) throws SQLException {
    url = System.getProperty("onceonly.bench.pg");
    if (url == null) {
      url = EmbeddedPg.url(EmbeddedPg.newDatabase("bench"));
    }
    // Fresh tables per trial: the run's benchmarks share one database.
    prefix = "b" + ProcessHandle.current().pid() + "_" + TRIALS.incrementAndGet() + "_";
    pool = new HikariDataSource();
    pool.setJdbcUrl(url);
    pool.setDataSourceProperties(EmbeddedPg.properties());
    pool.setMaximumPoolSize(params.getThreads() + 1);
    once = OnceOnly.builder().dataSource(pool).tablePrefix(prefix).build();
    OnceOnly.builder().dataSource(pool).tablePrefix(prefix + "raw_").build().close();
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE " + prefix + "effects (scope TEXT NOT NULL, k TEXT NOT NULL, v INT)");
    }
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(url, EmbeddedPg.properties());
  }

  @TearDown(Level.Trial)
  public void close() {
    once.close();
    pool.close();
  }

  static Integer effect(Connection c, String table, String scope, String key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?, 1)")) {
      ps.setString(1, scope);
      ps.setString(2, key);
      ps.executeUpdate();
    }
    return 1;
  }

  /** Per-thread state: a key sequence and a raw connection with its statements prepared once. */
  @State(Scope.Thread)
  public static class PerThread {
    String scope;
    int next;
    Connection raw;
    PreparedStatement lock;
    PreparedStatement select;
    PreparedStatement insertEffect;
    PreparedStatement insertReceipt;
    PreparedStatement send;
    PreparedStatement claim;
    PreparedStatement ack;

    @Setup(Level.Trial)
    public void open(PostgresBenchmark bench) throws SQLException {
      scope = "t" + bench.threads.incrementAndGet() + "-" + System.nanoTime();
      String r = bench.prefix + "raw_";
      raw = bench.connect();
      raw.setAutoCommit(false);
      lock = raw.prepareStatement("SELECT pg_advisory_xact_lock(?, ?)");
      select =
          raw.prepareStatement(
              "SELECT r.operation, r.fingerprint, r.result, r.created_at, r.expires_at,"
                  + " r.forget_at, (SELECT i.fingerprint FROM "
                  + r
                  + "intents i WHERE i.scope = ? AND i.intent_key = ?) FROM (SELECT 1 AS one) o"
                  + " LEFT JOIN "
                  + r
                  + "receipts r ON r.scope = ? AND r.intent_key = ?");
      insertEffect =
          raw.prepareStatement("INSERT INTO " + bench.prefix + "effects VALUES (?, ?, 1)");
      insertReceipt =
          raw.prepareStatement(
              "INSERT INTO "
                  + r
                  + "receipts (scope, intent_key, operation, fingerprint, result, created_at,"
                  + " expires_at, forget_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
      send =
          raw.prepareStatement(
              "INSERT INTO "
                  + r
                  + "messages (queue, message_key, fingerprint, payload, payload_ref,"
                  + " deliver_at, created_at) VALUES ('jobs', ?, ?, ?, NULL, ?, ?)"
                  + " ON CONFLICT (queue, message_key) DO NOTHING");
      claim =
          raw.prepareStatement(
              "WITH due AS (SELECT id, deliver_at AS due_at FROM "
                  + r
                  + "messages WHERE queue = 'jobs' AND deliver_at <= ? ORDER BY deliver_at, id"
                  + " LIMIT ? FOR UPDATE SKIP LOCKED), claimed AS (UPDATE "
                  + r
                  + "messages x SET deliver_at = ?, fence = x.fence + 1,"
                  + " attempts = x.attempts + 1,"
                  + " first_claimed_at = COALESCE(x.first_claimed_at, ?) FROM due"
                  + " WHERE x.id = due.id RETURNING x.id, x.message_key, x.payload,"
                  + " x.payload_ref, x.fence, x.attempts, x.created_at, x.last_error, due.due_at)"
                  + " SELECT id, message_key, payload, payload_ref, fence, attempts, created_at,"
                  + " last_error FROM claimed ORDER BY due_at, id");
      ack =
          raw.prepareStatement(
              "DELETE FROM " + r + "messages WHERE id = ? AND fence = ? RETURNING payload_ref");
    }

    @TearDown(Level.Trial)
    public void close() throws SQLException {
      raw.close();
    }
  }

  @Benchmark
  public Outcome<Integer> onceonly_newKey(PerThread t) throws SQLException {
    String key = "k" + t.next++;
    String table = prefix + "effects";
    return once.receipts()
        .execute(
            IntentKey.of(t.scope, key),
            "touch",
            Map.of("i", t.next),
            Integer.class,
            c -> effect(c, table, t.scope, key));
  }

  @Benchmark
  public String raw_newKey(PerThread t) throws SQLException {
    String key = "k" + t.next++;
    try {
      t.lock.setInt(1, 1);
      t.lock.setInt(2, (t.scope + '\0' + key).hashCode());
      t.lock.execute();
      t.select.setString(1, t.scope);
      t.select.setString(2, key);
      t.select.setString(3, t.scope);
      t.select.setString(4, key);
      try (ResultSet rs = t.select.executeQuery()) {
        rs.next();
        String stored = rs.getString(3);
        if (stored != null) {
          t.raw.commit();
          return stored;
        }
      }
      t.insertEffect.setString(1, t.scope);
      t.insertEffect.setString(2, key);
      t.insertEffect.executeUpdate();
      long now = System.currentTimeMillis();
      t.insertReceipt.setString(1, t.scope);
      t.insertReceipt.setString(2, key);
      t.insertReceipt.setString(3, "touch");
      t.insertReceipt.setString(4, FINGERPRINT);
      t.insertReceipt.setString(5, "1");
      t.insertReceipt.setObject(6, at(now));
      t.insertReceipt.setObject(7, at(now + 30 * 86_400_000L));
      t.insertReceipt.setObject(8, at(now + 395 * 86_400_000L));
      t.insertReceipt.executeUpdate();
      t.raw.commit();
      return "1";
    } catch (SQLException e) {
      t.raw.rollback();
      throw e;
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int onceonly_sendReceiveAck(PerThread t) {
    int done = QueueBenchmark.sendReceiveAck(once, t.scope + "-", t.next);
    t.next += BATCH;
    return done;
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public int raw_sendReceiveAck(PerThread t) throws Exception {
    long now = System.currentTimeMillis();
    for (int i = 0; i < BATCH; i++) {
      t.send.setString(1, t.scope + "-" + t.next++);
      t.send.setString(2, FINGERPRINT);
      t.send.setString(3, MAPPER.writeValueAsString(Map.of("n", t.next)));
      t.send.setObject(4, at(now));
      t.send.setObject(5, at(now));
      t.send.executeUpdate();
    }
    t.raw.commit();
    List<long[]> leases = new ArrayList<>(BATCH);
    t.claim.setObject(1, at(now));
    t.claim.setInt(2, BATCH);
    t.claim.setObject(3, at(now + 300_000));
    t.claim.setObject(4, at(now));
    try (ResultSet rs = t.claim.executeQuery()) {
      while (rs.next()) {
        MAPPER.readTree(rs.getString(3));
        leases.add(new long[] {rs.getLong(1), rs.getLong(5)});
      }
    }
    t.raw.commit();
    for (long[] l : leases) {
      t.ack.setLong(1, l[0]);
      t.ack.setLong(2, l[1]);
      try (ResultSet rs = t.ack.executeQuery()) {
        rs.next();
      }
    }
    t.raw.commit();
    return leases.size();
  }

  static OffsetDateTime at(long millis) {
    return OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
  }
}
