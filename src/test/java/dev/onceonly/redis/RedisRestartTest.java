package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.OnceOnly;
import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.cli.demo.ReportPipeline.Audit;
import dev.onceonly.cli.demo.ReportPipeline.ReportJob;
import dev.onceonly.cli.demo.Reports;
import dev.onceonly.redis.RedisReports.Recorder;
import dev.onceonly.redis.RedisWorker.Result;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;

/**
 * Redis killed (SIGKILL) and started again (append-only file on, synced at every write) in the
 * middle of a run, while a producer publishes and two consumers apply: the producer publishes again
 * what failed, the workers reconnect with backoff, and afterwards every job has exactly one report,
 * nothing is pending and the reconciler finds nothing left to publish.
 */
class RedisRestartTest {
  private static final int JOBS = 200;
  private static final Duration DRAIN = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void noReportIsLostOrDuplicatedWhenRedisIsKilledAndRestartedMidRun() throws Exception {
    Path file = dir.resolve("informes.db");
    Path redisDir = dir.resolve("redis");
    java.nio.file.Files.createDirectories(redisDir);
    List<ReportJob> jobs = ReportPipeline.jobs(7L, JOBS);
    Queue<Recorder.Event> events = Recorder.events();
    AtomicInteger created = new AtomicInteger();
    CountDownLatch halfway = new CountDownLatch(1);
    CountDownLatch disconnected = new CountDownLatch(2);
    AtomicInteger producerFailures = new AtomicInteger();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (EmbeddedRedis redis = EmbeddedRedis.start(redisDir);
        RedisClient client = redis.client();
        OnceOnly once = ReportPipeline.open(file)) {
      RedisStream stream = RedisStream.builder(client, "informes").build();
      RedisProducer producer = RedisProducer.of(once.intents(), stream);
      List<RedisWorker<?>> workers = new ArrayList<>();
      for (String name : List.of("c1", "c2")) {
        Recorder recorder =
            new Recorder(name, events) {
              private boolean down;

              @Override
              public void settled(String id, Result result, String detail) {
                super.settled(id, result, detail);
                if (result == Result.CREATED && created.incrementAndGet() == JOBS / 4) {
                  halfway.countDown();
                }
              }

              @Override
              public void disconnected(RuntimeException e) {
                if (!down) {
                  down = true;
                  disconnected.countDown();
                }
              }
            };
        workers.add(RedisReports.worker(stream, once, name).listener(recorder).build().start());
      }
      Future<?> production =
          pool.submit(
              () -> {
                for (ReportJob job : jobs) {
                  publishUntilDone(producer, job, producerFailures);
                }
                return null;
              });
      try {
        assertThat(halfway.await(DRAIN.toSeconds(), TimeUnit.SECONDS)).isTrue();
        redis.kill();
        assertThat(disconnected.await(DRAIN.toSeconds(), TimeUnit.SECONDS))
            .as("both workers saw Redis go")
            .isTrue();
        redis.restart();
        production.get(DRAIN.toSeconds(), TimeUnit.SECONDS);
        Eventually.await(
            DRAIN,
            "every job reported and nothing pending",
            () -> once.intents().pending(1000).isEmpty() && stream.pendingCount() == 0);
        assertThat(RedisReports.reconcile(once, stream).examined()).isZero();
      } finally {
        workers.forEach(RedisWorker::close);
        pool.shutdownNow();
      }
      assertThat(RedisReports.pendingEntries(client, stream)).isEmpty();
    }
    // Not every creation is seen as an event: one whose XACK failed with Redis down comes back
    // after the restart and is answered from its receipt. The rows are what count.
    assertThat(events).noneMatch(e -> e.result() == Result.REJECTED);
    Audit audit = ReportPipeline.audit(file);
    assertThat(audit.reports()).hasSize(JOBS);
    assertThat(audit.duplicatedJobs()).isEmpty();
    assertThat(audit.receipts()).isEqualTo(JOBS);
    assertThat(audit.rejections()).isEmpty();
    System.out.printf(
        "redis restart: %d publications failed and were repeated%n", producerFailures.get());
  }

  /** A producer that keeps the job's identity and publishes again while Redis is away. */
  private static void publishUntilDone(
      RedisProducer producer, ReportJob job, AtomicInteger failures) {
    long deadline = System.nanoTime() + DRAIN.toNanos();
    while (true) {
      try {
        producer.publish(job.key(), Reports.OPERATION, job.arguments());
        return;
      } catch (RedisTransportException e) {
        failures.incrementAndGet();
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        LockSupport.parkNanos(Duration.ofMillis(20).toNanos()); // a producer's retry pause
      }
    }
  }
}
