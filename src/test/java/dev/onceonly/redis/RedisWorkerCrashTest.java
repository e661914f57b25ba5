package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.cli.demo.ReportPipeline.Audit;
import dev.onceonly.cli.demo.ReportPipeline.ReportJob;
import dev.onceonly.cli.demo.Reports;
import dev.onceonly.redis.RedisReports.Recorder;
import dev.onceonly.redis.RedisWorker.Result;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;

/**
 * A consumer in another process is killed (SIGKILL) inside an effect, with its report row inserted
 * and not committed and more entries of its batch unacknowledged. Two consumers in this JVM take
 * its entries over with {@code XAUTOCLAIM}; afterwards every job has exactly one report.
 */
class RedisWorkerCrashTest {
  private static final int JOBS = 40;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void theEntriesOfAKilledConsumerAreRecoveredAndAppliedOnce() throws Exception {
    Path file = dir.resolve("informes.db");
    List<ReportJob> jobs = ReportPipeline.jobs(11L, JOBS);
    Queue<Recorder.Event> events = Recorder.events();
    try (EmbeddedRedis redis = EmbeddedRedis.start(Files.createDirectories(dir.resolve("redis")));
        RedisClient client = redis.client()) {
      RedisStream stream = RedisStream.builder(client, "informes").build();
      try (OnceOnly once = ReportPipeline.open(file)) {
        RedisProducer producer = RedisProducer.of(once.intents(), stream);
        jobs.forEach(j -> producer.publish(j.key(), Reports.OPERATION, j.arguments()));
      }
      String stalled;
      try (ChildJvm child =
          ChildJvm.start(
              "redis-worker",
              dir,
              RedisWorkerMain.class,
              "file=" + file,
              "port=" + redis.port(),
              "stream=" + stream.name(),
              "normal=5")) {
        stalled = child.awaitLine("effect", WAIT).substring("effect key=".length());
        child.kill();
      }
      List<String> heldByChild = new ArrayList<>();
      for (Object row : RedisReports.pendingEntries(client, stream)) {
        List<Object> fields = Replies.list(row);
        assertThat(Replies.text(fields.get(1))).isEqualTo("child");
        heldByChild.add(Replies.text(fields.get(0)));
      }
      assertThat(heldByChild).as("entries the child read and never acknowledged").hasSize(5);
      try (OnceOnly once = ReportPipeline.open(file)) {
        assertThat(once.receipts().find(ReportPipeline.jobs(11L, JOBS).get(0).key())).isPresent();
        assertThat(once.intents().pending(100)).hasSize(JOBS - 5);
        List<RedisWorker<?>> workers = new ArrayList<>();
        for (String name : List.of("c1", "c2")) {
          workers.add(
              RedisReports.worker(stream, once, name)
                  .listener(new Recorder(name, events))
                  .build()
                  .start());
        }
        try {
          Eventually.await(
              WAIT,
              "every job reported",
              () -> once.intents().pending(100).isEmpty() && stream.pendingCount() == 0);
        } finally {
          workers.forEach(RedisWorker::close);
        }
      }
      Set<String> settled = events.stream().map(Recorder.Event::id).collect(Collectors.toSet());
      assertThat(settled).containsAll(heldByChild);
      assertThat(events).noneMatch(e -> e.result() == Result.FAILED);
      assertThat(jobs).extracting(ReportJob::jobId).contains(stalled);
    }
    Audit audit = ReportPipeline.audit(file);
    assertThat(audit.integrity()).containsExactly("ok");
    assertThat(audit.reports()).hasSize(JOBS);
    assertThat(audit.duplicatedJobs()).isEmpty();
    assertThat(audit.receipts()).isEqualTo(JOBS);
  }
}
