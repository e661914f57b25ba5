package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Db;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak: two processes (this one and a {@link SoakMain} child) with 8 client threads each and a
 * worker each, on one SQLite file, for {@code -Donceonly.soak.seconds} (default 180), then checks
 * and reports. Not part of {@code mvn verify} (its name matches no surefire include); run it with
 *
 * <pre>
 * mvn -B -Psoak test -Donceonly.soak.seconds=180
 * </pre>
 *
 * <p>Asserted: zero duplicates (no intent with more than one effect row), zero lost (every {@code
 * Created} the library answered, directly or in a worker, has its effect row, and no row exists
 * without one; every message sent was worked off; nothing dead-lettered), a sound file. Reported:
 * throughput, p50 and p99 latency of a client step, peak heap, file size.
 */
class ReliabilitySoak {
  private static final long SECONDS = Long.getLong("onceonly.soak.seconds", 180);
  private static final int THREADS = Integer.getInteger("onceonly.soak.threads", 8);
  private static final long SEED = Long.getLong("onceonly.soak.seed", 20_261_130L);

  @TempDir Path dir;

  @Test
  void twoProcessesOfEightThreadsLoseNothingAndDuplicateNothing() throws Exception {
    Path file = dir.resolve("soak.db");
    try (OnceOnly once = SoakWorkload.open(file);
        Connection c = Db.open(file)) {
      SoakWorkload.createEffectTable(c);
    }
    SoakWorkload.Summary here;
    SoakWorkload.Summary there;
    try (ChildJvm child =
            ChildJvm.start(
                "soak-b",
                dir,
                SoakMain.class,
                "file=" + file,
                "process=b",
                "threads=" + THREADS,
                "seconds=" + SECONDS,
                "seed=" + SEED);
        OnceOnly once = SoakWorkload.open(file)) {
      child.awaitLine("ready", Duration.ofSeconds(60));
      child.send("go");
      here = new SoakWorkload("a").run(once, file, THREADS, Duration.ofSeconds(SECONDS), SEED);
      there =
          SoakWorkload.Summary.parse(child.awaitLine("summary", Duration.ofSeconds(SECONDS + 180)));
      child.awaitSuccess(Duration.ofSeconds(60));
    }

    long rows = Db.count(file, "SELECT COUNT(*) FROM soak_effects");
    long createdTotal =
        here.created() + there.created() + here.workerCreated() + there.workerCreated();
    long dbBytes = Files.size(file);
    long walBytes = sizeIfAny(file.resolveSibling("soak.db-wal"));
    double seconds = Math.max(here.seconds(), there.seconds());
    long steps = here.steps() + there.steps();
    String report =
        String.format(
            Locale.ROOT,
            "soak: 2 processes x %d threads, %.0f s, seed %d: %d client steps (%.0f/s),"
                + " p50 %d/%d us, p99 %d/%d us (process a/b), created %d (worker %d),"
                + " repeated %d, expired %d, sent %d, purged %d, peak heap %d/%d MiB,"
                + " file %.1f MiB + WAL %.1f MiB, effect rows %d",
            THREADS,
            seconds,
            SEED,
            steps,
            steps / seconds,
            here.p50Micros(),
            there.p50Micros(),
            here.p99Micros(),
            there.p99Micros(),
            createdTotal,
            here.workerCreated() + there.workerCreated(),
            here.repeated() + there.repeated(),
            here.expired() + there.expired(),
            here.sent() + there.sent(),
            here.purged() + there.purged(),
            here.maxHeapMiB(),
            there.maxHeapMiB(),
            dbBytes / 1048576.0,
            walBytes / 1048576.0,
            rows);
    System.out.println(report);
    Path out = Path.of("target", "soak", "report.txt");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report + "\n" + here.line() + "\n" + there.line() + "\n");

    assertThat(
            Db.strings(
                file,
                "SELECT intent_key FROM soak_effects GROUP BY scope, intent_key"
                    + " HAVING COUNT(*) > 1"))
        .as("duplicated effects")
        .isEmpty();
    assertThat(rows).as("effect rows against the Created answers").isEqualTo(createdTotal);
    assertThat(here.workerCreated() + there.workerCreated())
        .as("messages worked off")
        .isEqualTo(here.sent() + there.sent());
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    assertThat(
            Db.count(
                file,
                "SELECT COUNT(*) FROM soak_effects e LEFT JOIN onceonly_receipts r"
                    + " ON r.scope = e.scope AND r.intent_key = e.intent_key"
                    + " WHERE r.intent_key IS NULL"))
        .as("effects whose receipt is gone (purges only make tombstones)")
        .isZero();
    assertThat(Db.strings(file, "PRAGMA integrity_check")).isEqualTo(List.of("ok"));
    assertThat(steps).isPositive();
  }

  private static long sizeIfAny(Path p) throws java.io.IOException {
    return Files.exists(p) ? Files.size(p) : 0;
  }
}
