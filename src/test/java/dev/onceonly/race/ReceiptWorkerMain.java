package dev.onceonly.race;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.testing.ChildArgs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A worker process for the multi-process tests: runs receipt steps against one SQLite file and
 * reports on stdout.
 *
 * <p>Arguments, as {@code name=value}: {@code file} (the database), {@code worker} (its id, also
 * the seed of its key order), {@code keys} (how many keys, {@code k-0} to {@code k-<keys-1>}),
 * {@code busyTimeoutMs} (how long to wait for another process's lock, default 30,000), {@code
 * forever=true} (instead: keys {@code k-0, k-1, ...} in order until killed), {@code stepped=true}
 * (each effect, after its row is written and before the receipt is, prints {@code effect worker=...
 * key=...} and waits for a line {@code next} on stdin; a created step then prints {@code committed
 * worker=... key=...}) and {@code progressEvery} (print a progress line every so many keys).
 *
 * <p>It opens the store (after the start signal instead with {@code open=after-go}, having warmed
 * up on an in-memory database), prints {@code ready}, waits for a line {@code go} on stdin (so
 * several workers start together), prints {@code opened worker=... millis=...} (time from the
 * signal), then {@code progress ...} lines and finally {@code summary worker=... created=...
 * repeated=... conflict=... expired=... millis=... slowest=...}, where {@code slowest} is the
 * longest single step in milliseconds, mostly time spent waiting for other processes' locks. The
 * effect writes one row to {@code effects}, a table without a unique constraint on purpose: a
 * duplicate effect is an extra row.
 */
public final class ReceiptWorkerMain {
  static final String SCOPE = "s";

  private final Path file;
  private final String worker;
  private final Duration busyTimeout;
  private final boolean stepped;
  private final BlockingQueue<String> commands = new LinkedBlockingQueue<>();
  private final int progressEvery;
  private long created;
  private long repeated;
  private long conflict;
  private long expired;
  private long done;
  private long slowestNanos;

  private ReceiptWorkerMain(ChildArgs args) {
    this.file = Path.of(args.required("file"));
    this.worker = args.required("worker");
    this.busyTimeout = Duration.ofMillis(Long.parseLong(args.get("busyTimeoutMs", "30000")));
    this.stepped = Boolean.parseBoolean(args.get("stepped", "false"));
    this.progressEvery = Integer.parseInt(args.get("progressEvery", "0"));
  }

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    ReceiptWorkerMain w = new ReceiptWorkerMain(args);
    boolean openFirst = !"after-go".equals(args.get("open", "before-go"));
    OnceOnly opened = null;
    if (openFirst) {
      opened = w.open();
    } else {
      warmUp();
    }
    System.out.println("ready worker=" + w.worker + " pid=" + ProcessHandle.current().pid());
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String signal = in.readLine();
    if (!"go".equals(signal)) {
      System.err.println("expected 'go' on stdin, got " + signal);
      System.exit(2);
    }
    w.readCommands(in);
    long start = System.nanoTime();
    try (OnceOnly store = openFirst ? opened : w.open()) {
      System.out.println(
          "opened worker="
              + w.worker
              + " millis="
              + Duration.ofNanos(System.nanoTime() - start).toMillis());
      if (Boolean.parseBoolean(args.get("forever", "false"))) {
        for (int i = 0; i < Integer.MAX_VALUE; i++) {
          w.step(store, i);
        }
      } else {
        for (int i : order(Integer.parseInt(args.required("keys")), w.worker)) {
          w.step(store, i);
        }
      }
    }
    long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
    System.out.println(
        "summary worker="
            + w.worker
            + " created="
            + w.created
            + " repeated="
            + w.repeated
            + " conflict="
            + w.conflict
            + " expired="
            + w.expired
            + " millis="
            + millis
            + " slowest="
            + Duration.ofNanos(w.slowestNanos).toMillis());
    System.out.flush();
  }

  /**
   * Hands the lines of stdin after the start signal to the stepped effects ({@code next}), and ends
   * this process when stdin closes: the test closed it, or the test JVM died and would otherwise
   * leave a worker running forever.
   */
  private void readCommands(BufferedReader in) {
    Thread t =
        new Thread(
            () -> {
              try {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  commands.add(line);
                }
              } catch (IOException e) {
                // the same as end of input
              }
              Runtime.getRuntime().halt(3);
            },
            "parent-watch");
    t.setDaemon(true);
    t.start();
  }

  /** Opens the store (migrating it if needed) and makes sure the effect table exists. */
  private OnceOnly open() throws SQLException {
    OnceOnly once = OnceOnly.builder().sqlite(file).busyTimeout(busyTimeout).build();
    try {
      createEffectTable();
    } catch (SQLException | RuntimeException e) {
      once.close();
      throw e;
    }
    return once;
  }

  /**
   * Loads the driver, its native library and the library's classes on a throwaway in-memory
   * database, so that after the start signal opening the file takes milliseconds and the workers
   * really meet in the migration.
   */
  private static void warmUp() throws SQLException {
    try (Connection memory = DriverManager.getConnection("jdbc:sqlite::memory:");
        OnceOnly once = OnceOnly.builder().connection(memory).build()) {
      once.receipts().find(IntentKey.of(SCOPE, "warm-up"));
    }
  }

  private void step(OnceOnly once, int i) throws SQLException {
    String key = "k-" + i;
    long begun = System.nanoTime();
    Outcome<Integer> outcome =
        once.receipts()
            .execute(
                IntentKey.of(SCOPE, key),
                "touch",
                Map.of("i", i),
                Integer.class,
                tx -> {
                  insertEffect(tx, key, i);
                  if (stepped) {
                    System.out.println("effect worker=" + worker + " key=" + key);
                    System.out.flush();
                    awaitNext();
                  }
                  return i;
                });
    slowestNanos = Math.max(slowestNanos, System.nanoTime() - begun);
    if (stepped && outcome instanceof Outcome.Created) {
      System.out.println("committed worker=" + worker + " key=" + key);
      System.out.flush();
    }
    if (outcome instanceof Outcome.Created) {
      created++;
    } else if (outcome instanceof Outcome.Repeated) {
      repeated++;
    } else if (outcome instanceof Outcome.Conflict) {
      conflict++;
    } else {
      expired++;
    }
    if (!outcome.toOptional().map(r -> r == i).orElse(true)) {
      throw new IllegalStateException(key + " answered " + outcome);
    }
    done++;
    if (progressEvery > 0 && done % progressEvery == 0) {
      System.out.println("progress worker=" + worker + " keys=" + done + " created=" + created);
      System.out.flush();
    }
  }

  private void insertEffect(Connection tx, String key, int i) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement(
            "INSERT INTO effects (scope, intent_key, worker, n) VALUES (?, ?, ?, ?)")) {
      ps.setString(1, SCOPE);
      ps.setString(2, key);
      ps.setString(3, worker);
      ps.setInt(4, i);
      ps.executeUpdate();
    }
  }

  /**
   * Holds the effect open, its row written and nothing committed, until the parent says {@code
   * next}: the parent chooses where a SIGKILL lands instead of guessing it with a delay.
   */
  private void awaitNext() {
    try {
      String command = commands.take();
      if (!"next".equals(command)) {
        throw new IllegalStateException("expected 'next' on stdin, got " + command);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Creates the business table, through a connection of its own that waits for other writers. */
  private void createEffectTable() throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
        Statement s = c.createStatement()) {
      s.execute("PRAGMA busy_timeout = " + busyTimeout.toMillis());
      s.execute(
          "CREATE TABLE IF NOT EXISTS effects (scope TEXT, intent_key TEXT, worker TEXT,"
              + " n INTEGER)");
    }
  }

  private static List<Integer> order(int keys, String worker) {
    List<Integer> order = new ArrayList<>(keys);
    for (int i = 0; i < keys; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new Random(worker.hashCode()));
    return order;
  }
}
