package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.cli.demo.ReportPipeline.Audit;
import dev.onceonly.cli.demo.ReportPipeline.RejectionRow;
import dev.onceonly.redis.RedisReports.Recorder;
import dev.onceonly.redis.RedisWorker.Result;
import dev.onceonly.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;

/**
 * Seeded random hostile entries on a real stream: each is either applied (a receipt) or kept as a
 * rejection within the configured bounds and acknowledged; the worker never fails on one and
 * nothing stays pending.
 */
class RedisHostileInputTest {
  private static final long SEED = Long.getLong("onceonly.redis.seed", 8_000L);
  private static final int ENTRIES = 150;

  @TempDir Path dir;

  @Test
  void everyHostileEntryIsAppliedOrRejectedWithinBounds() {
    Path file = dir.resolve("informes.db");
    Path redisDir = dir.resolve("redis");
    Queue<Recorder.Event> events = Recorder.events();
    List<String> ids = new ArrayList<>();
    try (EmbeddedRedis redis = EmbeddedRedis.start(mkdirs(redisDir));
        RedisClient client = redis.client();
        OnceOnly once = ReportPipeline.open(file)) {
      RedisStream stream = RedisStream.builder(client, "hostil").maxLength(0).build();
      HostileEntries hostile = new HostileEntries(SEED);
      for (int i = 0; i < ENTRIES; i++) {
        ids.add(RedisReports.addRaw(client, stream, hostile.next()));
      }
      try (RedisWorker<?> worker =
          RedisReports.worker(stream, once, "c1")
              .requireRegisteredIntent(false)
              .listener(new Recorder("c1", events))
              .build()
              .start()) {
        Eventually.await(
            Duration.ofSeconds(30), "every entry settled", () -> events.size() >= ENTRIES);
      }
      assertThat(stream.pendingCount()).as("seed %d", SEED).isZero();
    }
    assertThat(events).as("seed %d", SEED).noneMatch(e -> e.result() == Result.FAILED);
    Map<String, Result> byId = new TreeMap<>();
    events.forEach(e -> byId.put(e.id(), e.result()));
    assertThat(byId.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    Audit audit = ReportPipeline.audit(file);
    Set<String> rejected =
        audit.rejections().stream()
            .map(r -> r.deliveryId().substring("hostil/".length()))
            .collect(Collectors.toSet());
    Set<String> applied =
        byId.entrySet().stream()
            .filter(e -> e.getValue() == Result.CREATED || e.getValue() == Result.REPEATED)
            .map(Map.Entry::getKey)
            .collect(Collectors.toSet());
    assertThat(rejected).as("seed %d", SEED).doesNotContainAnyElementsOf(applied);
    assertThat(rejected.size() + applied.size()).as("seed %d", SEED).isEqualTo(ENTRIES);
    assertThat(applied).as("some well-formed reports among the noise").isNotEmpty();
    assertThat(audit.reports()).hasSizeLessThanOrEqualTo(applied.size()).isNotEmpty();
    assertThat(audit.duplicatedJobs()).isEmpty();
    for (RejectionRow r : audit.rejections()) {
      assertThat(r.reason().length()).isLessThanOrEqualTo(300);
      assertThat(r.body().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(8192);
    }
    assertThat(audit.rejections())
        .as("the 1.1 MB entries are kept as bounded excerpts")
        .anyMatch(r -> r.bodyBytes() > 1_000_000);
  }

  private static Path mkdirs(Path p) {
    try {
      return java.nio.file.Files.createDirectories(p);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
