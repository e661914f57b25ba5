package dev.onceonly.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.OnceOnly;
import dev.onceonly.Receipt;
import dev.onceonly.Reconciler;
import dev.onceonly.cli.demo.ReportHandler;
import dev.onceonly.cli.demo.ReportHandler.Result;
import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.cli.demo.ReportPipeline.Audit;
import dev.onceonly.cli.demo.ReportPipeline.Production;
import dev.onceonly.cli.demo.ReportPipeline.RejectionRow;
import dev.onceonly.cli.demo.ReportPipeline.ReportJob;
import dev.onceonly.cli.demo.ReportPipeline.ReportRow;
import dev.onceonly.cli.demo.Reports.Report;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report workshop end to end on the SQL queue: 200 report jobs, registered and then published;
 * a producer that dies between the two for ten of them; four worker threads in this JVM and a
 * worker in a child JVM that is killed with SIGKILL while it holds leases, one of them inside an
 * uncommitted effect; a publish repeated while its message waits and one repeated after it was
 * acknowledged; a tampered message, two with a bad schema and one for a job nobody registered; and
 * a reconciler that publishes the intents that never were. Afterwards, through a fresh connection:
 * exactly one correct report per job, one receipt each, the four refused messages kept as bounded
 * rejections, nothing queued or dead, nothing pending, and a sound file. Run again on the same
 * file, every intent is already registered and every report repeated.
 */
class ReportPipelineTest {
  private static final long SEED = Long.getLong("onceonly.pipeline.seed", 20_000L);
  private static final int JOBS = 200;
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration STARTUP = Duration.ofSeconds(30);
  private static final Duration DRAIN = Duration.ofSeconds(30);
  private static final int CHILD_THREADS = 3;
  private static final int CHILD_NORMAL = 3;
  private static final Pattern CHILD_LINE =
      Pattern.compile(
          "(claimed|holding|effect|done) key=(\\S+) id=(\\d+) attempt=(\\d+)(?: result=(\\S+))?");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** A delivery as this JVM's workers settled it. */
  record Event(String messageKey, long messageId, int attempt, Result result) {}

  /** One line of the child's about a delivery. */
  record ChildLine(String what, String messageKey, long messageId, int attempt, String result) {
    static List<ChildLine> of(ChildJvm child) {
      List<ChildLine> out = new ArrayList<>();
      for (String line : child.lines()) {
        Matcher m = CHILD_LINE.matcher(line);
        if (m.matches()) {
          out.add(
              new ChildLine(
                  m.group(1),
                  m.group(2),
                  Long.parseLong(m.group(3)),
                  Integer.parseInt(m.group(4)),
                  m.group(5)));
        }
      }
      return out;
    }
  }

  /**
   * Records what this JVM's handlers settled. Until {@code gate} opens, a claimed delivery waits
   * (its lease renewed) so that the child surely gets work of its own while both run.
   */
  static final class Recorder implements ReportHandler.Listener {
    final Queue<Event> events = new ConcurrentLinkedQueue<>();
    final CountDownLatch gate;

    Recorder(CountDownLatch gate) {
      this.gate = gate;
    }

    @Override
    public void claimed(Delivery d) {
      try {
        if (!gate.await(STARTUP.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("the test never opened the gate");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted at the gate", e);
      }
    }

    @Override
    public void finished(Delivery d, Result result, String detail) {
      events.add(new Event(d.key(), d.lease().messageId(), d.attempt(), result));
    }

    List<Event> all() {
      return List.copyOf(events);
    }

    long count(Result result) {
      return events.stream().filter(e -> e.result() == result).count();
    }
  }

  @Test
  void everyJobGetsExactlyOneReportThroughCrashesDuplicatesAndTampering() throws Exception {
    Path file = dir.resolve("informes.db");
    List<ReportJob> jobs = ReportPipeline.jobs(SEED, JOBS);
    long start = System.nanoTime();

    firstRun(file, jobs);
    assertFinalState(file, jobs);
    long first = System.nanoTime();

    secondRun(file, jobs);
    assertFinalState(file, jobs);

    System.out.printf(
        Locale.ROOT,
        "report pipeline (seed %d): first run %d ms, second run %d ms%n",
        SEED,
        Duration.ofNanos(first - start).toMillis(),
        Duration.ofNanos(System.nanoTime() - first).toMillis());
  }

  private void firstRun(Path file, List<ReportJob> jobs) throws Exception {
    ReportJob victim = jobs.get(13);
    ReportJob republished = jobs.get(42);
    // The producer dies after registering these, before publishing them.
    Set<String> crashed =
        jobs.stream()
            .map(ReportJob::jobId)
            .filter(id -> Integer.parseInt(id.substring(id.lastIndexOf('-') + 1)) % 20 == 7)
            .collect(Collectors.toSet());
    assertThat(crashed).hasSize(10).doesNotContain(victim.jobId(), republished.jobId());

    CountDownLatch gate = new CountDownLatch(1);
    Recorder recorder = new Recorder(gate);
    List<ChildLine> childLines;
    try (OnceOnly once = ReportPipeline.open(file)) {
      Production produced = ReportPipeline.produce(once, jobs, j -> crashed.contains(j.jobId()));
      assertThat(produced.registered()).isEqualTo(JOBS);
      assertThat(produced.alreadyRegistered() + produced.conflicts()).isZero();
      assertThat(produced.sent()).isEqualTo(JOBS - 10);
      assertThat(produced.crashed()).containsExactlyInAnyOrderElementsOf(crashed);
      // A producer that lost the reply of its publish publishes again: the queue still holds it.
      assertThat(ReportPipeline.publish(once.queue(), jobs.get(0)).status())
          .isEqualTo(SendResult.Status.REPEATED);
      for (Message hostile : ReportPipeline.hostileMessages(victim)) {
        assertThat(once.queue().send(hostile).status()).isEqualTo(SendResult.Status.SENT);
      }
      assertThat(once.queue().depth(ReportPipeline.QUEUE)).isEqualTo(JOBS - 10 + 4);

      Worker worker = worker(once, recorder);
      try (ChildJvm child =
          ChildJvm.start(
              "report-worker",
              dir,
              ReportWorkerMain.class,
              "file=" + file,
              "threads=" + CHILD_THREADS,
              "leaseMs=" + LEASE.toMillis(),
              "normal=" + CHILD_NORMAL)) {
        child.awaitLine("ready", STARTUP);
        // This JVM's four threads claim a delivery each and wait at the gate, renewing their
        // leases, so the child surely gets deliveries of its own; the gate opens after the kill.
        child.send("go");
        worker.start();
        // The child finished some deliveries, holds two more, and is inside the effect of another.
        child.awaitLine("effect", STARTUP);
        // Its holding threads print on their own schedule: wait for every one before the kill.
        java.util.concurrent.atomic.AtomicInteger held =
            new java.util.concurrent.atomic.AtomicInteger();
        child.awaitLine(
            (CHILD_THREADS - 1) + " holding lines",
            l -> l.startsWith("holding") && held.incrementAndGet() == CHILD_THREADS - 1,
            STARTUP);
        int status = child.kill();
        if (System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")) {
          assertThat(status).as("exit status after SIGKILL").isEqualTo(128 + 9);
        }
        childLines = ChildLine.of(child);
        gate.countDown();

        // The child's leases lapse and this JVM's workers finish its messages too.
        awaitDrained(once, "the first pass");

        // Published again after its message was acknowledged: delivered, answered from the
        // receipt, and no second report.
        assertThat(ReportPipeline.publish(once.queue(), republished).status())
            .isEqualTo(SendResult.Status.SENT);
        awaitDrained(once, "the repeated publish");

        Reconciler.Report pass = ReportPipeline.reconcile(once);
        assertThat(pass)
            .as("only the intents the producer never published are pending")
            .isEqualTo(new Reconciler.Report(10, 10, 0, 0, 0, 1));
        awaitDrained(once, "the reconciled intents");
        assertThat(once.intents().pending(100)).isEmpty();
      } finally {
        gate.countDown();
        worker.close();
      }
    }

    assertChildDiedHoldingLeases(childLines, recorder);
    List<Event> events = recorder.all();
    long createdByChild =
        childLines.stream()
            .filter(l -> l.what().equals("done") && Result.CREATED.name().equals(l.result()))
            .count();
    assertThat(createdByChild).as("reports the child committed").isPositive();
    assertThat(recorder.count(Result.CREATED) + createdByChild)
        .as("reports created across both processes")
        .isEqualTo(JOBS);
    assertThat(events)
        .as("the republished job, answered from its receipt")
        .anyMatch(
            e ->
                e.messageKey().equals(republished.key().toString())
                    && e.result() == Result.REPEATED);
    assertThat(events.stream().filter(e -> e.result() == Result.CREATED).map(Event::messageKey))
        .as("the jobs the reconciler published were created here")
        .containsAll(crashed.stream().map(id -> ReportPipeline.SCOPE + "/" + id).toList());
    assertThat(recorder.count(Result.REPEATED)).as("repeated deliveries").isEqualTo(1);
    assertThat(recorder.count(Result.LEASE_LOST)).isZero();
    System.out.printf(
        Locale.ROOT,
        "child: %d reports committed, killed holding %s; here: %d created, %d repeated,"
            + " %d rejected, %d redelivered%n",
        createdByChild,
        childLines.stream()
            .filter(l -> l.what().equals("holding") || l.what().equals("effect"))
            .map(l -> l.what() + " " + l.messageKey())
            .toList(),
        recorder.count(Result.CREATED),
        recorder.count(Result.REPEATED),
        recorder.count(Result.REJECTED),
        events.stream().filter(e -> e.attempt() > 1).count());
  }

  /**
   * The child held leases when it died: the deliveries it was holding and the one inside its effect
   * were delivered again here (attempt 2 or more), and the one whose row it had inserted was
   * created here, so its insert never committed. What it did finish never came back.
   */
  private static void assertChildDiedHoldingLeases(List<ChildLine> lines, Recorder recorder) {
    List<ChildLine> holding = lines.stream().filter(l -> l.what().equals("holding")).toList();
    List<ChildLine> effect = lines.stream().filter(l -> l.what().equals("effect")).toList();
    assertThat(lines.stream().filter(l -> l.what().equals("done")))
        .hasSizeGreaterThanOrEqualTo(CHILD_NORMAL);
    assertThat(holding).hasSize(CHILD_THREADS - 1);
    assertThat(effect).hasSize(1);
    List<Event> events = recorder.all();
    for (ChildLine held : holding) {
      assertThat(events)
          .as("redelivery of %s, held by the child when it died", held)
          .anyMatch(e -> e.messageId() == held.messageId() && e.attempt() > held.attempt());
    }
    ChildLine open = effect.get(0);
    assertThat(events)
        .as("redelivery of %s, inside the child's effect when it died", open)
        .anyMatch(
            e ->
                e.messageId() == open.messageId()
                    && e.attempt() > open.attempt()
                    && e.result() == Result.CREATED);
    Set<Long> finishedByChild =
        lines.stream()
            .filter(l -> l.what().equals("done"))
            .map(ChildLine::messageId)
            .collect(Collectors.toSet());
    assertThat(events)
        .as("deliveries the child completed, delivered again")
        .noneMatch(e -> finishedByChild.contains(e.messageId()));
  }

  private void secondRun(Path file, List<ReportJob> jobs) throws Exception {
    Recorder recorder = new Recorder(new CountDownLatch(0));
    try (OnceOnly once = ReportPipeline.open(file)) {
      Production produced = ReportPipeline.produce(once, jobs, j -> false);
      assertThat(produced.alreadyRegistered()).isEqualTo(JOBS);
      assertThat(produced.registered() + produced.conflicts()).isZero();
      assertThat(produced.sent()).isEqualTo(JOBS);
      Worker worker = worker(once, recorder).start();
      try {
        awaitDrained(once, "the second run");
        assertThat(ReportPipeline.reconcile(once).examined()).isZero();
      } finally {
        worker.close();
      }
    }
    assertThat(recorder.all()).hasSize(JOBS).allMatch(e -> e.result() == Result.REPEATED);
  }

  private static Worker worker(OnceOnly once, Recorder recorder) {
    return Worker.builder(
            once.queue(),
            ReportPipeline.QUEUE,
            new ReportHandler(once, ReportPipeline.SCOPE, recorder))
        .threads(4)
        .lease(LEASE)
        .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(100))
        .build();
  }

  private static void awaitDrained(OnceOnly once, String what) {
    Eventually.await(
        DRAIN, "queue drained after " + what, () -> once.queue().depth(ReportPipeline.QUEUE) == 0);
  }

  /** The rows, read through a fresh connection after every store on the file was closed. */
  private static void assertFinalState(Path file, List<ReportJob> jobs) throws Exception {
    Audit audit = ReportPipeline.audit(file);
    assertThat(audit.integrity()).containsExactly("ok");
    assertThat(audit.intents()).isEqualTo(JOBS);
    assertThat(audit.reports()).hasSize(JOBS);
    assertThat(audit.duplicatedJobs()).as("jobs with more than one report").isEmpty();
    assertThat(audit.reports()).allMatch(r -> r.scope().equals(ReportPipeline.SCOPE));
    Map<String, Report> expected = new TreeMap<>();
    jobs.forEach(j -> expected.put(j.jobId(), expected(j.samples())));
    Map<String, Report> written = new TreeMap<>();
    for (ReportRow r : audit.reports()) {
      written.put(r.jobId(), new Report(r.count(), r.minimum(), r.maximum(), r.mean()));
    }
    assertThat(written).isEqualTo(expected);
    assertThat(audit.receipts()).isEqualTo(JOBS);
    assertThat(audit.queued()).isZero();
    assertThat(audit.deadLetters()).isZero();
    assertThat(audit.pendingIntents()).isZero();
    assertRejections(audit.rejections());

    try (OnceOnly once = ReportPipeline.open(file)) {
      assertThat(once.intents().pending(100)).isEmpty();
      assertThat(once.queue().depth(ReportPipeline.QUEUE)).isZero();
      assertThat(once.queue().deadLetters(ReportPipeline.QUEUE, 10)).isEmpty();
      for (ReportJob job : jobs) {
        Receipt receipt = once.receipts().find(job.key()).orElseThrow();
        assertThat(JSON.readValue(receipt.resultJson(), Report.class))
            .as("the result stored in the receipt of %s", job.jobId())
            .isEqualTo(expected.get(job.jobId()));
      }
    }
  }

  private static void assertRejections(List<RejectionRow> rejections) {
    assertThat(rejections).hasSize(4);
    assertThat(rejections).allMatch(r -> r.reason().length() <= 300);
    assertThat(rejections).allMatch(r -> r.body().getBytes(StandardCharsets.UTF_8).length <= 8192);
    assertThat(rejections).allMatch(r -> r.deliveryId().startsWith(ReportPipeline.QUEUE + "/"));
    Map<String, RejectionRow> byKind = new TreeMap<>();
    Map<String, String> reasons = new TreeMap<>();
    for (RejectionRow r : rejections) {
      String kind = r.deliveryId().substring(ReportPipeline.QUEUE.length() + 1).split("/")[0];
      byKind.put(kind, r);
      reasons.put(kind, r.reason());
    }
    assertThat(reasons.keySet())
        .containsExactly("bad-envelope", "bad-samples", "tampered", "unregistered");
    assertThat(reasons.get("tampered")).contains("does not match the registered intent");
    // The hostile envelope was cut on both counts: a reason of 300 characters, an 8 KB excerpt.
    RejectionRow envelope = byKind.get("bad-envelope");
    assertThat(envelope.reason())
        .startsWith("payload: unknown member \"attachment_xxx")
        .hasSize(300);
    assertThat(envelope.bodyBytes()).isGreaterThan(40_000);
    assertThat(envelope.body()).startsWith("{\"attachment_xxx").hasSizeLessThan(8192);
    assertThat(reasons.get("bad-samples")).contains("use 1 to 100 samples");
    assertThat(reasons.get("unregistered")).contains("no registered intent");
  }

  /** Count, minimum, maximum and mean of the samples, computed here on their own. */
  private static Report expected(List<Integer> samples) {
    int min = Integer.MAX_VALUE;
    int max = Integer.MIN_VALUE;
    long sum = 0;
    for (int x : samples) {
      min = Math.min(min, x);
      max = Math.max(max, x);
      sum += x;
    }
    return new Report(samples.size(), min, max, (double) sum / samples.size());
  }
}
