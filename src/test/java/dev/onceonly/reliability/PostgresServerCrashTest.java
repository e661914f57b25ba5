package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.Eventually;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PostgreSQL server itself killed with SIGKILL (its postmaster and every backend at once) while
 * four threads run receipts steps, then started again on its data directory, several rounds on one
 * directory. The server runs as PostgreSQL ships ({@code fsync}, {@code synchronous_commit} and
 * {@code full_page_writes} on), and {@code build()} reports it crash-safe. After each restart,
 * every step the library answered {@code Created} has its receipt and exactly one effect; then the
 * steps that got no answer are called again and each key ends with exactly one effect.
 *
 * <p>With {@code synchronous_commit=off} (the fast embedded server's setting, and what {@code
 * build()} warns of) the same run loses answered receipts: {@code
 * -Donceonly.crash.pg.server.durable=false} shows it. {@code -Donceonly.crash.pg.server.rounds}
 * sets the rounds (default 2, as in {@code mvn verify}).
 */
class PostgresServerCrashTest {
  private static final int ROUNDS = Integer.getInteger("onceonly.crash.pg.server.rounds", 2);
  private static final boolean DURABLE =
      Boolean.parseBoolean(System.getProperty("onceonly.crash.pg.server.durable", "true"));
  private static final long SEED = Long.getLong("onceonly.crash.seed", System.nanoTime());
  private static final int THREADS = 4;

  @TempDir Path dir;

  private final Set<String> answeredCreated = ConcurrentHashMap.newKeySet();
  private final Set<String> unanswered = ConcurrentHashMap.newKeySet();
  private final Set<String> unexpected = ConcurrentHashMap.newKeySet();
  private final AtomicInteger keys = new AtomicInteger();

  @Test
  void stepsAnsweredBeforeTheServerWasKilledKeepTheirReceiptAndEffect() throws Exception {
    Random random = new Random(SEED);
    Path data = dir.resolve("pgdata");
    EmbeddedPostgres server = start(data);
    try (Connection c = server.getPostgresDatabase().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE charges (charge_key TEXT NOT NULL)");
    }
    List<String> lostPerRound = new ArrayList<>();
    for (int round = 1; round <= ROUNDS; round++) {
      int before = answeredCreated.size();
      try (HikariDataSource pool = pool(server);
          OnceOnly once = OnceOnly.builder().dataSource(pool).build()) {
        assertThat(once.maintenance().durability().crashSafe())
            .as("build() reads the server as crash-safe")
            .isEqualTo(DURABLE);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          Thread thread = new Thread(() -> charge(once, stop), "client-" + t);
          thread.start();
          threads.add(thread);
        }
        int target = before + 50 + random.nextInt(400);
        Eventually.await(Duration.ofSeconds(60), () -> answeredCreated.size() >= target);
        kill(data);
        stop.set(true);
        for (Thread thread : threads) {
          thread.join(Duration.ofSeconds(60).toMillis());
          assertThat(thread.isAlive()).as(thread.getName() + " ended").isFalse();
        }
      }
      server = restart(server, data);
      Set<String> lost = missingReceipts(server);
      lostPerRound.add(
          "round "
              + round
              + ": "
              + answeredCreated.size()
              + " answered Created so far, "
              + lost.size()
              + " of them without receipt"
              + (lost.isEmpty() ? "" : " " + lost));
      if (DURABLE) {
        assertThat(lost).as("answered Created without receipt, round %d", round).isEmpty();
      }
    }
    assertThat(unexpected).as("first calls of new keys answered other than Created").isEmpty();
    System.out.printf(
        "PostgreSQL server killed %d times (durable=%s, seed %d): %s%n",
        ROUNDS, DURABLE, SEED, lostPerRound);

    // The steps that got no answer are called again, as their callers would: one effect per key.
    try (HikariDataSource pool = pool(server);
        OnceOnly once = OnceOnly.builder().dataSource(pool).build()) {
      for (String key : unanswered) {
        step(once, key);
      }
      for (String key : answeredCreated) {
        Outcome<String> again = step(once, key);
        if (DURABLE) {
          assertThat(again).as(key).isInstanceOf(Outcome.Repeated.class);
        }
      }
    }
    try (Connection c = server.getPostgresDatabase().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*), count(DISTINCT charge_key),"
                    + " (SELECT count(*) FROM onceonly_receipts) FROM charges")) {
      rs.next();
      int called = keys.get();
      if (DURABLE) {
        assertThat(rs.getLong(1)).as("effects").isEqualTo(called);
        assertThat(rs.getLong(2)).as("keys with an effect").isEqualTo(called);
        assertThat(rs.getLong(3)).as("receipts").isEqualTo(called);
      }
    } finally {
      server.close();
    }
  }

  /** Runs new keys until stopped, recording each answer; a key without an answer is kept. */
  private void charge(OnceOnly once, AtomicBoolean stop) {
    while (!stop.get()) {
      String key = "k-" + keys.incrementAndGet();
      unanswered.add(key);
      try {
        Outcome<String> outcome = step(once, key);
        if (!(outcome instanceof Outcome.Created)) {
          unexpected.add(key + ": " + outcome);
        }
        answeredCreated.add(key);
        unanswered.remove(key);
      } catch (Exception e) {
        return; // the server is gone: this key's caller got no answer
      }
    }
  }

  private static Outcome<String> step(OnceOnly once, String key) throws SQLException {
    return once.receipts()
        .execute(
            IntentKey.of("shop", key),
            "charge",
            Map.of("amount", 5),
            String.class,
            tx -> {
              try (PreparedStatement ps = tx.prepareStatement("INSERT INTO charges VALUES (?)")) {
                ps.setString(1, key);
                ps.executeUpdate();
              }
              return "charged " + key;
            });
  }

  private Set<String> missingReceipts(EmbeddedPostgres server) throws SQLException {
    Set<String> present = ConcurrentHashMap.newKeySet();
    try (Connection c = server.getPostgresDatabase().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT intent_key FROM onceonly_receipts")) {
      while (rs.next()) {
        present.add(rs.getString(1));
      }
    }
    Set<String> missing = new java.util.TreeSet<>(answeredCreated);
    missing.removeAll(present);
    return missing;
  }

  private static EmbeddedPostgres start(Path data) throws IOException {
    String durability = DURABLE ? "on" : "off";
    return EmbeddedPostgres.builder()
        .setDataDirectory(data)
        .setCleanDataDirectory(false)
        .setServerConfig("timezone", EmbeddedPg.SESSION_TIME_ZONE)
        .setServerConfig("fsync", durability)
        .setServerConfig("synchronous_commit", durability)
        .setServerConfig("full_page_writes", durability)
        .start();
  }

  /** SIGKILL to the postmaster and every process under it, as one crash of the machine's server. */
  private static void kill(Path data) throws IOException {
    long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
    ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
    List<ProcessHandle> all =
        Stream.concat(Stream.of(postmaster), postmaster.descendants()).toList();
    all.forEach(ProcessHandle::destroyForcibly);
    Eventually.await(Duration.ofSeconds(30), () -> all.stream().noneMatch(ProcessHandle::isAlive));
  }

  /** Lets go of the killed instance and starts the server again on its data directory. */
  private static EmbeddedPostgres restart(EmbeddedPostgres killed, Path data) throws IOException {
    try {
      killed.close(); // pg_ctl stop finds no server; this releases the directory's lock
    } catch (IOException | RuntimeException e) {
      // expected: the server is already gone
    }
    return start(data);
  }

  private static HikariDataSource pool(EmbeddedPostgres server) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(server.getJdbcUrl("postgres", "postgres"));
    config.setDataSourceProperties(EmbeddedPg.properties());
    config.setMaximumPoolSize(THREADS);
    config.setConnectionTimeout(5_000);
    config.setConnectionInitSql(EmbeddedPg.SET_TIME_ZONE);
    return new HikariDataSource(config);
  }
}
