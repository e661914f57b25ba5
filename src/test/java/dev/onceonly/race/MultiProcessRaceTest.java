package dev.onceonly.race;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Db;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several JVM processes on one SQLite file, started together: every key's effect happens once, and
 * the file stays sound. The rows are read afterwards through a fresh connection.
 */
class MultiProcessRaceTest {
  private static final int WORKERS = 4;
  private static final Duration STARTUP = Duration.ofSeconds(30);
  private static final Duration RUN = Duration.ofSeconds(50);
  private static final Pattern SUMMARY =
      Pattern.compile(
          "summary worker=(\\S+) created=(\\d+) repeated=(\\d+) conflict=(\\d+) expired=(\\d+)"
              + " millis=(\\d+) slowest=(\\d+)");

  @TempDir Path dir;

  /** One worker's summary line. */
  record Summary(String worker, long created, long repeated, long conflict, long expired) {
    static Summary parse(String line) {
      Matcher m = SUMMARY.matcher(line);
      assertThat(m.matches()).as("summary line: %s", line).isTrue();
      return new Summary(
          m.group(1),
          Long.parseLong(m.group(2)),
          Long.parseLong(m.group(3)),
          Long.parseLong(m.group(4)),
          Long.parseLong(m.group(5)));
    }
  }

  @Test
  void fourProcessesOnSharedKeysRunEachEffectOnce() {
    int keys = 1_000;
    Path file = dir.resolve("race.db");

    List<Summary> summaries = race(file, keys, "open=before-go");

    assertThat(summaries).allSatisfy(s -> assertThat(s.conflict() + s.expired()).isZero());
    assertThat(summaries).allSatisfy(s -> assertThat(s.created() + s.repeated()).isEqualTo(keys));
    assertThat(summaries.stream().mapToLong(Summary::created).sum()).isEqualTo(keys);
    assertThat(Db.strings(file, "PRAGMA integrity_check")).containsExactly("ok");
    assertThat(Db.count(file, "SELECT COUNT(*) FROM effects")).isEqualTo(keys);
    assertThat(Db.count(file, "SELECT COUNT(DISTINCT intent_key) FROM effects")).isEqualTo(keys);
    assertThat(
            Db.strings(
                file,
                "SELECT intent_key FROM effects GROUP BY scope, intent_key HAVING COUNT(*) > 1"))
        .isEmpty();
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(keys);
    assertThat(
            Db.count(
                file,
                "SELECT COUNT(*) FROM onceonly_receipts r JOIN effects e"
                    + " ON e.scope = r.scope AND e.intent_key = r.intent_key"
                    + " WHERE r.result = CAST(e.n AS TEXT) AND e.intent_key = 'k-' || e.n"))
        .as("receipts whose stored result is their effect's number")
        .isEqualTo(keys);
    // Each worker's Created answers are exactly the effect rows it wrote.
    for (Summary s : summaries) {
      assertThat(Db.count(file, "SELECT COUNT(*) FROM effects WHERE worker = '" + s.worker() + "'"))
          .as("effect rows of %s", s.worker())
          .isEqualTo(s.created());
    }
  }

  @Test
  void fourProcessesOpeningANewFileTogetherMigrateItOnce() {
    int keys = 25;
    Path file = dir.resolve("fresh.db");
    assertThat(file).doesNotExist();

    List<Summary> summaries = race(file, keys, "open=after-go");

    assertThat(summaries).allSatisfy(s -> assertThat(s.conflict() + s.expired()).isZero());
    assertThat(summaries).allSatisfy(s -> assertThat(s.created() + s.repeated()).isEqualTo(keys));
    assertThat(summaries.stream().mapToLong(Summary::created).sum()).isEqualTo(keys);
    assertThat(Db.strings(file, "PRAGMA integrity_check")).containsExactly("ok");
    assertThat(Db.strings(file, "PRAGMA journal_mode")).containsExactly("wal");
    long versions = Db.count(file, "SELECT MAX(version) FROM onceonly_schema_version");
    assertThat(versions).isGreaterThanOrEqualTo(1);
    assertThat(Db.count(file, "SELECT COUNT(DISTINCT version) FROM onceonly_schema_version"))
        .as("each migration recorded once")
        .isEqualTo(versions);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_schema_version")).isEqualTo(versions);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM effects")).isEqualTo(keys);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(keys);
  }

  /**
   * Starts {@link #WORKERS} workers on {@code file}, waits until every one is ready, releases them
   * together and returns their summaries.
   *
   * @param open {@code open=before-go} to race on the keys only, {@code open=after-go} to race on
   *     opening (and migrating) the file too
   */
  private List<Summary> race(Path file, int keys, String open) {
    long start = System.nanoTime();
    Map<String, Summary> byWorker = new HashMap<>();
    try (ChildJvm.Group group = new ChildJvm.Group()) {
      for (int w = 0; w < WORKERS; w++) {
        group.add(
            ChildJvm.start(
                "worker-" + w,
                dir,
                ReceiptWorkerMain.class,
                "file=" + file,
                "worker=w" + w,
                "keys=" + keys,
                open));
      }
      for (ChildJvm child : group.all()) {
        child.awaitLine("ready", STARTUP);
      }
      long released = System.nanoTime();
      group.all().forEach(child -> child.send("go"));
      long deadline = released + RUN.toNanos();
      for (ChildJvm child : group.all()) {
        child.awaitSuccess(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        Summary s = Summary.parse(child.awaitLine("summary", Duration.ZERO));
        byWorker.put(s.worker(), s);
      }
      System.out.printf(
          "%d workers x %d keys: %d ms from release (%d ms with JVM start-up) %s%n",
          WORKERS,
          keys,
          Duration.ofNanos(System.nanoTime() - released).toMillis(),
          Duration.ofNanos(System.nanoTime() - start).toMillis(),
          group.all().stream()
              .map(
                  c ->
                      c.awaitLine("opened", Duration.ZERO)
                          + " "
                          + c.awaitLine("summary", Duration.ZERO))
              .toList());
    }
    assertThat(byWorker).hasSize(WORKERS);
    return List.copyOf(byWorker.values());
  }
}
