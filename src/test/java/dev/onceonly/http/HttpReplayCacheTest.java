package dev.onceonly.http;

import static dev.onceonly.http.HttpTestApp.TABLE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.Race;
import dev.onceonly.testing.SqliteDataSources;
import dev.onceonly.testing.ThreadTransactions;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The replay cache of {@link IdempotencyFilter} never answers what the store would not: a key past
 * its retention or its receipt's expiry, or purged by another instance on the same file, is never
 * replayed from memory. Real Jetty servers, a real HTTP client, SQLite files read back after the
 * run.
 */
class HttpReplayCacheTest {
  static final Duration RETENTION = Duration.ofHours(1);

  @TempDir Path dir;
  final MutableClock clock = MutableClock.at("2026-03-01T10:00:00Z");
  final List<AutoCloseable> open = new ArrayList<>();

  Path file() {
    return dir.resolve("api.db");
  }

  SQLiteDataSource dataSource() {
    return SqliteDataSources.wal(file(), SQLiteConfig.TransactionMode.IMMEDIATE, 30_000);
  }

  <T extends AutoCloseable> T kept(T closeable) {
    open.add(0, closeable);
    return closeable;
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  /** The plain mode: a store on the file, the handler writing on connections of its own. */
  OnceOnly plainStore() throws SQLException {
    OnceOnly once = kept(OnceOnly.builder().sqlite(file()).clock(clock).build());
    createTable(dataSource());
    return once;
  }

  static void createTable(SQLiteDataSource ds) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.createStatement().execute(HttpTestApp.CREATE_TABLE);
    }
  }

  HttpTestApp plainApp(OnceOnly once, long cacheBytes) throws Exception {
    SQLiteDataSource ds = dataSource();
    return kept(
        new HttpTestApp(
            filter(once, cacheBytes).build(),
            (id, amount, path) -> {
              try (Connection c = ds.getConnection()) {
                HttpTestApp.insert(c, id, amount, path);
              }
            }));
  }

  IdempotencyFilter.Builder filter(OnceOnly once, long cacheBytes) {
    return HttpTestApp.paymentsRoute(once)
        .clock(clock)
        .replayRetention(RETENTION)
        .replayCacheBytes(cacheBytes);
  }

  /** The transactional mode: the receipt and the handler's row in one transaction. */
  record Transactional(OnceOnly once, ThreadTransactions tx) {}

  Transactional transactionalStore() throws SQLException {
    SQLiteDataSource ds = dataSource();
    createTable(ds);
    ThreadTransactions tx = kept(new ThreadTransactions(ds));
    OnceOnly once =
        kept(
            OnceOnly.builder()
                .dataSource(ds)
                .currentTransaction(tx)
                .clock(clock)
                .resultRetention(Duration.ofMinutes(30))
                .tombstoneRetention(Duration.ofMinutes(30))
                .build());
    return new Transactional(once, tx);
  }

  HttpTestApp transactionalApp(Transactional t, long cacheBytes) throws Exception {
    return kept(
        new HttpTestApp(
            filter(t.once(), cacheBytes).transactional(t.tx()).build(),
            (id, amount, path) -> HttpTestApp.insert(t.tx().connection(), id, amount, path)));
  }

  /** A second instance on the same file, as another process would open it. */
  OnceOnly otherInstance() {
    return kept(OnceOnly.builder().sqlite(file()).clock(clock).build());
  }

  static HttpResponse<byte[]> pay(HttpTestApp app, String key, String json) throws Exception {
    return app.send(app.post("/payments", key, "alice", json));
  }

  static boolean replayed(HttpResponse<byte[]> r) {
    return r.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER).isPresent();
  }

  long rows() {
    return Db.count(file(), "SELECT COUNT(*) FROM " + TABLE);
  }

  static final String JSON = "{\"amount\": 1250}";

  @Test
  void plainModeNeverReplaysFromMemoryOnceTheRetentionHasPassed() throws Exception {
    HttpTestApp app = plainApp(plainStore(), IdempotencyFilter.DEFAULT_REPLAY_CACHE_BYTES);
    assertThat(pay(app, "k-1", JSON).statusCode()).isEqualTo(201);
    assertThat(replayed(pay(app, "k-1", JSON))).isTrue(); // now answered from memory

    List<String> wrong = raceAgainst(app, () -> clock.advance(RETENTION.plusSeconds(1)));

    assertThat(wrong).isEmpty();
    assertThat(pay(app, "k-1", JSON).statusCode()).isEqualTo(422);
    assertThat(rows()).isEqualTo(1);
    assertThat(Db.strings(file(), "SELECT state FROM onceonly_claims"))
        .containsExactly("COMPLETED");
  }

  @Test
  void transactionalModeNeverReplaysFromMemoryAKeyAnotherInstancePurged() throws Exception {
    Transactional t = transactionalStore();
    HttpTestApp app = transactionalApp(t, IdempotencyFilter.DEFAULT_REPLAY_CACHE_BYTES);
    assertThat(pay(app, "k-1", JSON).statusCode()).isEqualTo(201);
    assertThat(replayed(pay(app, "k-1", JSON))).isTrue(); // read once, then from memory
    assertThat(replayed(pay(app, "k-1", JSON))).isTrue();
    OnceOnly other = otherInstance();

    List<String> wrong =
        raceAgainst(
            app,
            () -> {
              clock.advance(Duration.ofMinutes(31));
              assertThat(other.receipts().purge(100).tombstoned()).isEqualTo(1);
            });

    assertThat(wrong).isEmpty();
    assertThat(Db.count(file(), "SELECT COUNT(*) FROM onceonly_receipts WHERE result IS NULL"))
        .isEqualTo(1);
    assertThat(rows()).isEqualTo(1);
  }

  /**
   * Replays {@code k-1} from four threads while a fifth, released by the same gate, runs {@code
   * change}; returns the replays sent after the change was done that were answered 201 anyway.
   */
  static List<String> raceAgainst(HttpTestApp app, Runnable change) throws Exception {
    AtomicBoolean changed = new AtomicBoolean();
    ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    Race.run(
        5,
        i ->
            () -> {
              if (i == 0) {
                change.run();
                changed.set(true);
                return null;
              }
              for (int n = 0; n < 8; n++) {
                boolean after = changed.get();
                HttpResponse<byte[]> r = pay(app, "k-1", JSON);
                if (after && r.statusCode() == 201) {
                  wrong.add("replay " + n + " of thread " + i + ": " + HttpTestApp.text(r));
                }
              }
              return null;
            });
    return List.copyOf(wrong);
  }

  @Test
  void plainModeWithTheCacheAnswersAsTheStoreDoesOverGeneratedRequests() throws Exception {
    OnceOnly once = plainStore();
    compareWithStore(plainApp(once, 600), plainApp(once, 0), null);
  }

  @Test
  void transactionalModeWithTheCacheAnswersAsTheStoreDoesOverGeneratedRequests() throws Exception {
    Transactional t = transactionalStore();
    compareWithStore(transactionalApp(t, 600), transactionalApp(t, 0), otherInstance());
  }

  /**
   * Sends generated requests (three keys, two bodies, the clock moving, purges by another instance
   * when {@code purger} is given) to {@code cached}, each followed by the same request to {@code
   * reference}, a filter without a cache on the same store: the store's answer. A cached answer
   * that the store would not give shows as a difference. The cache of 600 bytes holds two
   * responses, so that entries are also evicted.
   */
  void compareWithStore(HttpTestApp cached, HttpTestApp reference, OnceOnly purger)
      throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    String[] bodies = {JSON, "{\"amount\": 990}"};
    int replays = 0;
    String lastKey = null;
    String lastBody = null;
    for (int step = 0; step < 60; step++) {
      // The first request goes twice before anything else happens, so that the cache answers at
      // least once whatever the seed: with an early jump of the clock past the retention, a
      // sequence could otherwise end without one replay.
      int dice = step < 2 ? 9 : random.nextInt(10);
      if (dice < 2) {
        clock.advance(Duration.ofMinutes(random.nextInt(40)));
      } else if (dice == 2 && purger != null) {
        purger.receipts().purge(100);
      } else {
        String key = step == 1 ? lastKey : "g-" + random.nextInt(3);
        String body = step == 1 ? lastBody : bodies[random.nextInt(bodies.length)];
        lastKey = key;
        lastBody = body;
        HttpResponse<byte[]> a = pay(cached, key, body);
        HttpResponse<byte[]> b = pay(reference, key, body);
        String where = "seed " + seed + ", step " + step + ", " + key + " " + body;
        assertThat(b.statusCode()).as(where).isEqualTo(a.statusCode());
        assertThat(HttpTestApp.text(b)).as(where).isEqualTo(HttpTestApp.text(a));
        if (replayed(a)) {
          assertThat(replayed(b)).as(where).isTrue();
          replays++;
        }
      }
    }
    assertThat(replays).as("replays of the cached filter, seed " + seed).isPositive();
  }
}
