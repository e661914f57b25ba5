package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.Registration;
import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.cli.demo.ReportPipeline.Audit;
import dev.onceonly.cli.demo.ReportPipeline.ReportJob;
import dev.onceonly.cli.demo.ReportPipeline.ReportRow;
import dev.onceonly.cli.demo.Reports;
import dev.onceonly.redis.RedisReports.Recorder;
import dev.onceonly.redis.RedisWorker.Result;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;

/**
 * The report workshop over a Redis stream: 200 report jobs registered and then added to the stream
 * (ten registered only, as if the producer died in between), one added twice (a lost {@code XADD}
 * reply), a tampered message; three consumers in one group, one of which stops in the middle of a
 * batch without acknowledging it, its entries taken over by the others with {@code XAUTOCLAIM}; a
 * reconciliation pass for the ten. Afterwards, through a fresh connection to the SQLite file: one
 * correct report per job and no duplicate, the tampered message among the rejections, and nothing
 * pending in the group.
 */
class RedisReportPipelineTest {
  private static final int JOBS = 200;
  private static final Duration DRAIN = Duration.ofSeconds(30);

  @TempDir static Path redisDir;
  private static EmbeddedRedis redis;

  @TempDir Path dir;

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start(redisDir);
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @Test
  void everyJobGetsExactlyOneReportThroughAStoppedConsumerDuplicatesAndTampering() {
    Path file = dir.resolve("informes.db");
    List<ReportJob> jobs = ReportPipeline.jobs(20_000L, JOBS);
    ReportJob victim = jobs.get(13);
    Set<String> crashed =
        jobs.stream()
            .map(ReportJob::jobId)
            .filter(id -> Integer.parseInt(id.substring(id.lastIndexOf('-') + 1)) % 20 == 7)
            .collect(Collectors.toSet());
    Queue<Recorder.Event> events = Recorder.events();
    Set<String> abandoned = ConcurrentHashMap.newKeySet();
    String tamperedId;
    try (RedisClient client = redis.client();
        OnceOnly once = ReportPipeline.open(file)) {
      RedisStream stream = RedisStream.builder(client, "informes").group("workshop").build();
      RedisProducer producer = RedisProducer.of(once.intents(), stream);
      for (ReportJob job : jobs) {
        if (crashed.contains(job.jobId())) {
          once.intents().register(job.key(), Reports.OPERATION, job.arguments());
        } else {
          assertThat(producer.publish(job.key(), Reports.OPERATION, job.arguments()).published())
              .isTrue();
        }
      }
      // The reply of an XADD was lost: the producer publishes the same intent again.
      RedisProducer.Publication again =
          producer.publish(jobs.get(0).key(), Reports.OPERATION, jobs.get(0).arguments());
      assertThat(again.registration()).isInstanceOf(Registration.AlreadyRegistered.class);
      List<Integer> other = new ArrayList<>(victim.samples());
      other.set(0, other.get(0) == 0 ? 1 : 0);
      tamperedId =
          stream.add(
              new StreamMessage(victim.key(), Reports.OPERATION, RedisReports.arguments(other)));
      assertThat(RedisReports.length(client, stream)).isEqualTo(JOBS - 10 + 2);

      // The third consumer settles five entries, then stops in the middle of its next batch.
      AtomicReference<RedisWorker<?>> third = new AtomicReference<>();
      AtomicInteger seen = new AtomicInteger();
      Recorder thirdRecorder =
          new Recorder("c3", events) {
            @Override
            public void received(String id, boolean recovered) {
              if (seen.incrementAndGet() > 5) {
                abandoned.add(id);
                third.get().abandon();
              }
            }
          };
      third.set(RedisReports.worker(stream, once, "c3").listener(thirdRecorder).build());
      List<RedisWorker<?>> workers = new ArrayList<>();
      for (String name : List.of("c1", "c2")) {
        workers.add(
            RedisReports.worker(stream, once, name).listener(new Recorder(name, events)).build());
      }
      // The three consumers of the group start together.
      third.get().start();
      workers.forEach(RedisWorker::start);
      try {
        Eventually.await(DRAIN, "the third consumer stopped", () -> !abandoned.isEmpty());
        Eventually.await(
            DRAIN,
            "every published job reported and nothing pending",
            () -> once.intents().pending(1000).size() == 10 && stream.pendingCount() == 0);
        assertThat(crashed)
            .containsExactlyInAnyOrderElementsOf(
                once.intents().pending(1000).stream().map(i -> i.key().key()).toList());
        Reconciler.Report reconciled = RedisReports.reconcile(once, stream);
        assertThat(reconciled.examined()).isEqualTo(10);
        assertThat(reconciled.published()).isEqualTo(10);
        Eventually.await(
            DRAIN,
            "the reconciled jobs reported",
            () -> once.intents().pending(1000).isEmpty() && stream.pendingCount() == 0);
      } finally {
        workers.forEach(RedisWorker::close);
        third.get().close();
      }
      assertThat(RedisReports.pendingEntries(client, stream)).isEmpty();
    }

    // The stopped consumer's entries were settled by the others, after XAUTOCLAIM.
    Map<String, String> settledBy = new TreeMap<>();
    events.forEach(e -> settledBy.put(e.id(), e.consumer()));
    assertThat(abandoned).allMatch(id -> Set.of("c1", "c2").contains(settledBy.get(id)));
    assertThat(events.stream().filter(e -> e.result() == Result.REPEATED).count())
        .as("the duplicate XADD answered from its receipt")
        .isGreaterThanOrEqualTo(1);
    assertThat(events).noneMatch(e -> e.result() == Result.FAILED);

    Audit audit = ReportPipeline.audit(file);
    assertThat(audit.integrity()).containsExactly("ok");
    assertThat(audit.intents()).isEqualTo(JOBS);
    assertThat(audit.receipts()).isEqualTo(JOBS);
    assertThat(audit.pendingIntents()).isZero();
    assertThat(audit.reports()).hasSize(JOBS);
    assertThat(audit.duplicatedJobs()).isEmpty();
    Map<String, ReportRow> byJob = new TreeMap<>();
    audit.reports().forEach(r -> byJob.put(r.jobId(), r));
    for (ReportJob job : jobs) {
      ReportRow row = byJob.get(job.jobId());
      assertThat(row.count()).isEqualTo(job.samples().size());
      assertThat(row.minimum())
          .isEqualTo(job.samples().stream().mapToInt(i -> i).min().orElseThrow());
      assertThat(row.maximum())
          .isEqualTo(job.samples().stream().mapToInt(i -> i).max().orElseThrow());
    }
    assertThat(audit.rejections()).hasSize(1);
    assertThat(audit.rejections().get(0).deliveryId()).isEqualTo("informes/" + tamperedId);
    assertThat(audit.rejections().get(0).reason())
        .contains("does not match the registered intent workshop/" + victim.jobId());
  }
}
