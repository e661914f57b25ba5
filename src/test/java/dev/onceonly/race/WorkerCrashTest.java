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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker killed with SIGKILL at random points, five times on one file: after each kill the next
 * worker recovers the file, and in the end every receipt has exactly one effect row and every
 * effect row a receipt. This is "effect and receipt commit together or not at all" with no chance
 * for the process to clean up.
 *
 * <p>The worker runs stepped: each effect writes its row, reports it and waits for the test's
 * {@code next}. The test lets a random number of effects commit (seeded), then kills the worker
 * either inside the next effect (its row written, nothing committed) or right after the next
 * commit. The kill point is chosen, not hoped for with a delay.
 */
class WorkerCrashTest {
  private static final int ROUNDS = 5;
  private static final long SEED = Long.getLong("onceonly.crash.seed", 20_240_611L);
  private static final Duration STARTUP = Duration.ofSeconds(30);
  private static final Pattern EFFECT = Pattern.compile("effect worker=\\S+ key=(k-\\d+)");

  @TempDir Path dir;

  @Test
  void killedWorkersLeaveNoEffectWithoutReceiptNorReceiptWithoutEffect() {
    Path file = dir.resolve("crash.db");
    Random random = new Random(SEED);
    long start = System.nanoTime();
    List<Kill> kills = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      // Each worker creates keys of its own before it dies, past the ones already done; the
      // rounds alternate between a kill inside an open effect and one just after a commit.
      boolean inside = round % 2 == 0;
      Kill kill = killWorker(file, round, 5 + random.nextInt(20), inside);
      assertThat(kill.insideEffect()).as("where %s landed", kill).isEqualTo(inside);
      kills.add(kill);
      assertThat(Db.strings(file, "PRAGMA integrity_check")).containsExactly("ok");
    }
    System.out.printf(
        "%d workers killed (seed %d) in %d ms, %d receipts: %s%n",
        ROUNDS,
        SEED,
        Duration.ofNanos(System.nanoTime() - start).toMillis(),
        Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts"),
        kills);

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
  record Kill(String lastEffect, int committedBefore, boolean insideEffect) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%s after %d commits, %s",
          lastEffect,
          committedBefore,
          insideEffect ? "inside the effect" : "after its commit");
    }
  }

  /**
   * Runs a stepped worker, lets {@code commits} of its effects commit, then kills it with SIGKILL
   * inside the next effect or, if not {@code inside}, as soon as that effect has committed.
   */
  private Kill killWorker(Path file, int round, int commits, boolean inside) {
    try (ChildJvm child =
        ChildJvm.start(
            "crash-" + round,
            dir,
            ReceiptWorkerMain.class,
            "file=" + file,
            "worker=c" + round,
            "forever=true",
            "stepped=true")) {
      child.awaitLine("ready", STARTUP);
      child.send("go");
      for (int n = 1; n <= commits; n++) {
        awaitEffect(child, n);
        child.send("next");
      }
      String last = key(awaitEffect(child, commits + 1));
      if (!inside) {
        child.send("next");
        child.awaitLine(
            "committed", l -> l.startsWith("committed ") && l.endsWith(" key=" + last), STARTUP);
      }
      int status = child.kill();
      if (System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")) {
        assertThat(status).as("exit status after SIGKILL").isEqualTo(128 + 9);
      }
      assertThat(child.lines()).noneMatch(l -> l.startsWith("summary"));
      assertThat(lastEffectKey(child)).isIn(last, nextKey(last));
      long committed =
          Db.count(
              file, "SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = '" + last + "'");
      return new Kill(last, commits, committed == 0);
    }
  }

  /** Waits for the child's {@code n}-th effect line (its effects run one at a time, in order). */
  private static String awaitEffect(ChildJvm child, int n) {
    AtomicInteger seen = new AtomicInteger();
    return child.awaitLine(
        "effect #" + n, l -> EFFECT.matcher(l).matches() && seen.incrementAndGet() == n, STARTUP);
  }

  private static String key(String effectLine) {
    Matcher m = EFFECT.matcher(effectLine);
    assertThat(m.matches()).isTrue();
    return m.group(1);
  }

  /** After a commit the child may already be inside the next effect when it dies. */
  private static String nextKey(String key) {
    return "k-" + (Integer.parseInt(key.substring(2)) + 1);
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
}
