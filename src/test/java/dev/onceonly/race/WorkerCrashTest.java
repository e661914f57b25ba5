package dev.onceonly.race;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Db;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker killed with SIGKILL at random points, five times on one file: after each kill the next
 * worker recovers the file, and in the end every receipt has exactly one effect row and every
 * effect row a receipt. This is "effect and receipt commit together or not at all" with no chance
 * for the process to clean up.
 */
class WorkerCrashTest {
  private static final int ROUNDS = 5;
  private static final long SEED = Long.getLong("onceonly.crash.seed", 20_240_611L);
  private static final Duration STARTUP = Duration.ofSeconds(30);
  private static final Pattern PROGRESS =
      Pattern.compile("progress worker=\\S+ keys=\\d+ created=(\\d+)");
  private static final Pattern EFFECT = Pattern.compile("effect worker=\\S+ key=(k-\\d+)");

  @TempDir Path dir;

  @Test
  void killedWorkersLeaveNoEffectWithoutReceiptNorReceiptWithoutEffect() {
    Path file = dir.resolve("crash.db");
    Random random = new Random(SEED);
    long start = System.nanoTime();
    List<Kill> kills = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      // Each worker must create keys of its own before it dies, past the ones already done.
      kills.add(killWorker(file, round, 5 + random.nextInt(20), random.nextInt(150)));
      assertThat(Db.strings(file, "PRAGMA integrity_check")).containsExactly("ok");
    }
    System.out.printf(
        "%d workers killed (seed %d) in %d ms, %d receipts: %s%n",
        ROUNDS,
        SEED,
        Duration.ofNanos(System.nanoTime() - start).toMillis(),
        Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts"),
        kills);
    // 20 ms of each ~22 ms step are inside the effect: missing it five times is next to impossible.
    assertThat(kills).as("kills that landed inside an open effect").anyMatch(Kill::insideEffect);

    long receipts = Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts");
    assertThat(receipts).isGreaterThanOrEqualTo(5L * ROUNDS);
    assertThat(
            Db.strings(
                file,
                "SELECT r.intent_key FROM onceonly_receipts r"
                    + " WHERE (SELECT COUNT(*) FROM effects e"
                    + " WHERE e.scope = r.scope AND e.intent_key = r.intent_key) <> 1"))
        .as("receipts without exactly one effect row")
        .isEmpty();
    assertThat(
            Db.strings(
                file,
                "SELECT e.intent_key FROM effects e LEFT JOIN onceonly_receipts r"
                    + " ON r.scope = e.scope AND r.intent_key = e.intent_key"
                    + " WHERE r.intent_key IS NULL"))
        .as("effect rows without a receipt")
        .isEmpty();
    assertThat(
            Db.strings(
                file,
                "SELECT intent_key FROM effects GROUP BY scope, intent_key HAVING COUNT(*) > 1"))
        .as("duplicate effects")
        .isEmpty();
    // Every worker goes through the keys in order, so the keys done are exactly k-0 .. k-(n-1).
    assertThat(Db.count(file, "SELECT MAX(n) + 1 FROM effects")).isEqualTo(receipts);

    // Reopened after the crashes, the store answers every key from its receipt.
    try (OnceOnly once = OnceOnly.openSqlite(file)) {
      for (int i = 0; i < receipts; i++) {
        int n = i;
        Outcome<Integer> again =
            once.receipts()
                .execute(
                    IntentKey.of(ReceiptWorkerMain.SCOPE, "k-" + i),
                    "touch",
                    Map.of("i", i),
                    Integer.class,
                    tx -> {
                      throw new AssertionError("effect ran again for k-" + n);
                    });
        assertThat(again).isInstanceOf(Outcome.Repeated.class);
        assertThat(again.resultOrThrow()).isEqualTo(i);
      }
    }
    assertThat(Db.count(file, "SELECT COUNT(*) FROM effects")).isEqualTo(receipts);
  }

  /** Where one kill landed: the last effect the worker started, and whether it committed. */
  record Kill(String lastEffect, long delayMillis, boolean insideEffect) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%s +%d ms %s",
          lastEffect,
          delayMillis,
          insideEffect ? "inside the effect" : "after its commit");
    }
  }

  /**
   * Runs a worker until it has created {@code createdBeforeKill} keys, lets it go on for {@code
   * delayMillis}, then kills it with SIGKILL.
   */
  private Kill killWorker(Path file, int round, int createdBeforeKill, long delayMillis) {
    try (ChildJvm child =
        ChildJvm.start(
            "crash-" + round,
            dir,
            ReceiptWorkerMain.class,
            "file=" + file,
            "worker=c" + round,
            "forever=true",
            "pauseMs=20",
            "progressEvery=5")) {
      child.awaitLine("ready", STARTUP);
      child.send("go");
      child.awaitLine(
          "progress with created >= " + createdBeforeKill,
          line -> created(line) >= createdBeforeKill,
          STARTUP);
      sleep(delayMillis); // the random kill point, not a wait for a condition
      int status = child.kill();
      if (System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")) {
        assertThat(status).as("exit status after SIGKILL").isEqualTo(128 + 9);
      }
      assertThat(child.lines()).noneMatch(l -> l.startsWith("summary"));
      String last = lastEffectKey(child);
      long committed =
          Db.count(
              file, "SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = '" + last + "'");
      return new Kill(last, delayMillis, committed == 0);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private static String lastEffectKey(ChildJvm child) {
    String last = null;
    for (String line : child.lines()) {
      Matcher m = EFFECT.matcher(line);
      if (m.matches()) {
        last = m.group(1);
      }
    }
    assertThat(last).as("the last effect %s started", child.name()).isNotNull();
    return last;
  }

  private static long created(String line) {
    Matcher m = PROGRESS.matcher(line);
    return m.matches() ? Long.parseLong(m.group(1)) : -1;
  }
}
