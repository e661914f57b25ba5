package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.OnceOnly;
import dev.onceonly.Registration;
import dev.onceonly.Rejection;
import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.cli.demo.ReportPipeline.Audit;
import dev.onceonly.cli.demo.ReportPipeline.ReportJob;
import dev.onceonly.cli.demo.Reports;
import dev.onceonly.cli.demo.Reports.Report;
import dev.onceonly.redis.RedisReports.Recorder;
import dev.onceonly.redis.RedisWorker.Result;
import dev.onceonly.testing.Eventually;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/** The worker's behaviours one at a time, against a real redis-server and a SQLite file. */
class RedisWorkerTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir static Path redisDir;
  private static EmbeddedRedis redis;

  @TempDir Path dir;
  private RedisClient client;
  private OnceOnly once;
  private RedisStream stream;
  private Path file;

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start(redisDir);
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @BeforeEach
  void open(TestInfo info) {
    client = redis.client();
    file = dir.resolve("informes.db");
    once = ReportPipeline.open(file);
    stream =
        RedisStream.builder(client, info.getTestMethod().orElseThrow().getName())
            .maxLength(0)
            .build();
  }

  @AfterEach
  void close() {
    once.close();
    client.close();
  }

  @Test
  void aRepublishedIntentIsAnsweredFromItsReceiptAndOtherContentIsNotPublished() {
    ReportJob job = ReportPipeline.jobs(1L, 1).get(0);
    RedisProducer producer = RedisProducer.of(once.intents(), stream);
    assertThat(producer.publish(job.key(), Reports.OPERATION, job.arguments()).registration())
        .isInstanceOf(Registration.Registered.class);
    // The reply of the first XADD was lost: the producer, keeping the job's identity, publishes
    // again; the stream holds two entries of one intent.
    RedisProducer.Publication again =
        producer.publish(job.key(), Reports.OPERATION, job.arguments());
    assertThat(again.registration()).isInstanceOf(Registration.AlreadyRegistered.class);
    RedisProducer.Publication other =
        producer.publish(job.key(), Reports.OPERATION, RedisReports.arguments(List.of(1)));
    assertThat(other.registration()).isInstanceOf(Registration.Conflict.class);
    assertThat(other.published()).isFalse();
    assertThat(RedisReports.length(client, stream)).isEqualTo(2);

    assertTwoCopiesAppliedOnce();
    assertThat(ReportPipeline.audit(file).receipts()).isEqualTo(1);
  }

  @Test
  void aPublicationWhoseReplyIsLostIsSafeToRepeat() {
    ReportJob job = ReportPipeline.jobs(7L, 1).get(0);
    try (ReplyDroppingProxy proxy = ReplyDroppingProxy.start(redis.port());
        RedisClient viaProxy = RedisClient.create("127.0.0.1", proxy.port())) {
      RedisStream proxied = RedisStream.builder(viaProxy, stream.name()).maxLength(0).build();
      RedisProducer producer = RedisProducer.of(once.intents(), proxied);
      assertThat(proxied.isDeadLettered(job.key())).isFalse(); // the connection is open
      proxy.dropNextReply();
      assertThatThrownBy(() -> producer.publish(job.key(), Reports.OPERATION, job.arguments()))
          .isInstanceOf(RedisTransportException.class);
      // XADD ran; only its reply was lost. The producer cannot know, so it publishes again.
      assertThat(RedisReports.length(client, stream)).isEqualTo(1);
      assertThat(producer.publish(job.key(), Reports.OPERATION, job.arguments()).registration())
          .isInstanceOf(Registration.AlreadyRegistered.class);
      assertThat(RedisReports.length(client, stream)).isEqualTo(2);
    }
    assertTwoCopiesAppliedOnce();
  }

  @Test
  void entriesTrimmedWhilePendingAreRecordedAckedAndPublishedAgainByTheReconciler() {
    List<ReportJob> jobs = ReportPipeline.jobs(2L, 3);
    RedisProducer producer = RedisProducer.of(once.intents(), stream);
    jobs.forEach(j -> producer.publish(j.key(), Reports.OPERATION, j.arguments()));
    stream.ensureGroup();
    // A consumer reads the three entries and dies; then the stream is trimmed under them.
    List<Replies.Entry> read = stream.read("dead", 10, 0, ">");
    assertThat(read).hasSize(3);
    client.sendCommand(Protocol.Command.XTRIM, stream.name(), "MAXLEN", "0");
    assertThat(RedisReports.pendingEntries(client, stream)).hasSize(3);

    Queue<Recorder.Event> events = Recorder.events();
    try (RedisWorker<Report> worker =
        RedisReports.worker(stream, once, "c1").listener(new Recorder("c1", events)).build()) {
      worker.start();
      Eventually.await(WAIT, "the trimmed entries acked", () -> stream.pendingCount() == 0);
      assertThat(once.rejections().list(10))
          .extracting(Rejection::deliveryId)
          .containsExactlyInAnyOrderElementsOf(
              read.stream().map(e -> stream.name() + "/" + e.id()).toList());
      assertThat(once.rejections().list(10)).allMatch(r -> r.reason().contains("trimmed"));
      assertThat(once.intents().pending(10)).hasSize(3);
      assertThat(RedisReports.reconcile(once, stream).published()).isEqualTo(3);
      Eventually.await(WAIT, "the jobs reported", () -> once.intents().pending(10).isEmpty());
    }
    assertThat(RedisReports.pendingEntries(client, stream)).isEmpty();
    once.close();
    assertThat(ReportPipeline.audit(file).reports()).hasSize(3);
  }

  @Test
  void anEntryDeliveredTooOftenIsADeadLetterAndIsNotPublishedAgain() {
    List<ReportJob> jobs = ReportPipeline.jobs(3L, 2);
    ReportJob poison = jobs.get(0);
    RedisProducer producer = RedisProducer.of(once.intents(), stream);
    jobs.forEach(j -> producer.publish(j.key(), Reports.OPERATION, j.arguments()));
    RedisWorker.StreamEffect<Report> failing =
        (c, m) -> {
          if (m.key().equals(poison.key())) {
            throw new IllegalStateException("the effect fails every time");
          }
          return RedisReports.EFFECT.apply(c, m);
        };
    Queue<Recorder.Event> events = Recorder.events();
    try (RedisWorker<Report> worker =
        RedisWorker.builder(stream, once, Report.class, failing)
            .consumer("c1")
            .block(Duration.ofMillis(50))
            .claimIdle(Duration.ofMillis(50))
            .claimInterval(Duration.ofMillis(50))
            .maxDeliveries(3)
            .listener(new Recorder("c1", events))
            .build()) {
      worker.start();
      Eventually.await(
          WAIT,
          "the poison entry dead-lettered",
          () -> stream.pendingCount() == 0 && once.rejections().count() == 1);
    }
    assertThat(events.stream().filter(e -> e.result() == Result.FAILED).count()).isEqualTo(3);
    Rejection dead = once.rejections().list(1).get(0);
    assertThat(dead.reason())
        .startsWith("dead letter: delivered 4 times, more than the limit of 3");
    assertThat(dead.bodyExcerpt()).contains(poison.jobId());
    assertThat(stream.isDeadLettered(poison.key())).isTrue();
    long length = RedisReports.length(client, stream);
    var pass = RedisReports.reconcile(once, stream);
    assertThat(pass.deadLettered()).isEqualTo(1);
    assertThat(pass.published()).isZero();
    assertThat(RedisReports.length(client, stream)).isEqualTo(length);
    assertThat(stream.forgetDeadLetter(poison.key())).isTrue();
    assertThat(RedisReports.reconcile(once, stream).published()).isEqualTo(1);
    once.close();
    assertThat(ReportPipeline.audit(file).reports())
        .extracting(ReportPipeline.ReportRow::jobId)
        .containsExactly(jobs.get(1).jobId());
  }

  @Test
  void malformedUnregisteredAndInvalidEntriesAreRejectedAndAcked() {
    ReportJob stranger = ReportPipeline.jobs(4L, 1).get(0);
    String unregistered =
        stream.add(new StreamMessage(stranger.key(), Reports.OPERATION, stranger.arguments()));
    String unknownField =
        RedisReports.addRaw(
            client,
            stream,
            List.of(HostileEntries.utf8("attachment"), HostileEntries.utf8("x".repeat(20_000))));
    assertThat(settle(2)).containsOnly(Result.REJECTED);
    assertThat(stream.pendingCount()).isZero();
    assertThat(once.rejections().list(10))
        .extracting(Rejection::deliveryId)
        .containsExactlyInAnyOrder(
            stream.name() + "/" + unregistered, stream.name() + "/" + unknownField);
    assertThat(once.rejections().list(10))
        .allMatch(
            r -> r.bodyExcerpt().getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= 8192);
  }

  @Test
  void aWorkerWhoseConnectionsAreKilledReconnectsAndLosesNothing() {
    List<ReportJob> jobs = ReportPipeline.jobs(6L, 10);
    RedisProducer producer = RedisProducer.of(once.intents(), stream);
    Queue<Recorder.Event> events = Recorder.events();
    java.util.concurrent.atomic.AtomicInteger disconnects =
        new java.util.concurrent.atomic.AtomicInteger();
    Recorder recorder =
        new Recorder("c1", events) {
          @Override
          public void disconnected(RuntimeException e) {
            disconnects.incrementAndGet();
          }
        };
    try (RedisWorker<Report> worker =
        RedisReports.worker(stream, once, "c1").listener(recorder).build()) {
      worker.start();
      jobs.subList(0, 5).forEach(j -> producer.publish(j.key(), Reports.OPERATION, j.arguments()));
      Eventually.await(WAIT, "the first five reported", () -> events.size() == 5);
      // Every other client's connection is closed by the server, the worker's blocking read too.
      client.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "normal", "SKIPME", "yes");
      Eventually.await(WAIT, "the worker saw its connection go", () -> disconnects.get() > 0);
      jobs.subList(5, 10).forEach(j -> producer.publish(j.key(), Reports.OPERATION, j.arguments()));
      Eventually.await(WAIT, "all ten reported", () -> once.intents().pending(20).isEmpty());
    }
    assertThat(stream.pendingCount()).isZero();
    once.close();
    Audit audit = ReportPipeline.audit(file);
    assertThat(audit.reports()).hasSize(10);
    assertThat(audit.duplicatedJobs()).isEmpty();
  }

  @Test
  void aStreamLostWithItsGroupIsRecreatedAndItsIntentsReconciled() {
    List<ReportJob> jobs = ReportPipeline.jobs(8L, 6);
    RedisProducer producer = RedisProducer.of(once.intents(), stream);
    Queue<Recorder.Event> events = Recorder.events();
    try (RedisWorker<Report> worker =
        RedisReports.worker(stream, once, "c1").listener(new Recorder("c1", events)).build()) {
      worker.start();
      jobs.subList(0, 3).forEach(j -> producer.publish(j.key(), Reports.OPERATION, j.arguments()));
      Eventually.await(WAIT, "the first three reported", () -> events.size() == 3);
      // Redis loses the stream and its group (no persistence, a flush): the worker's next read
      // fails with NOGROUP; its recovery creates the group again.
      client.sendCommand(Protocol.Command.DEL, stream.name());
      for (ReportJob j : jobs.subList(3, 6)) {
        once.intents().register(j.key(), Reports.OPERATION, j.arguments());
      }
      assertThat(RedisReports.reconcile(once, stream).published()).isEqualTo(3);
      Eventually.await(
          WAIT, "the reconciled three reported", () -> once.intents().pending(10).isEmpty());
    }
    assertThat(stream.pendingCount()).isZero();
    once.close();
    assertThat(ReportPipeline.audit(file).reports()).hasSize(6);
  }

  @Test
  void buildersRefuseBadSettings() {
    assertThatThrownBy(() -> RedisStream.builder(client, "no spaces"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisStream.builder(client, "s").group(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RedisStream.builder(client, "s").maxLength(-1))
        .isInstanceOf(IllegalArgumentException.class);
    RedisWorker.Builder<Report> b = RedisReports.worker(stream, once, "c1");
    assertThatThrownBy(() -> b.maxDeliveries(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.batchSize(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.claimIdle(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.consumer("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.reconnectBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    RedisWorker<Report> worker = b.build().start();
    assertThatThrownBy(worker::start).isInstanceOf(IllegalStateException.class);
    worker.close();
  }

  @Test
  void theStreamIsTrimmedToAboutItsMaximumLength() {
    RedisStream bounded = RedisStream.builder(client, stream.name() + "-b").maxLength(100).build();
    ReportJob job = ReportPipeline.jobs(5L, 1).get(0);
    for (int i = 0; i < 400; i++) {
      bounded.add(new StreamMessage(job.key(), Reports.OPERATION, job.arguments()));
    }
    assertThat(RedisReports.length(client, bounded)).isBetween(100L, 200L);
  }

  /** Runs a worker until {@code count} entries are settled; returns what became of them. */
  private List<Result> settle(int count) {
    Queue<Recorder.Event> events = Recorder.events();
    try (RedisWorker<Report> worker =
        RedisReports.worker(stream, once, "c1").listener(new Recorder("c1", events)).build()) {
      worker.start();
      Eventually.await(WAIT, count + " entries settled", () -> events.size() >= count);
    }
    return events.stream().map(Recorder.Event::result).toList();
  }

  /** The stream's two copies of one intent: the first created its report, the second repeated. */
  private void assertTwoCopiesAppliedOnce() {
    assertThat(settle(2)).containsExactly(Result.CREATED, Result.REPEATED);
    assertThat(stream.pendingCount()).isZero();
    once.close();
    assertThat(ReportPipeline.audit(file).reports()).hasSize(1);
  }
}
