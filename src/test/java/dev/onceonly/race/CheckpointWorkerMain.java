package dev.onceonly.race;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildArgs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A worker process running a checkpointed job on one SQLite file, for {@link CheckpointCrashTest}.
 *
 * <p>The job {@value #JOB} goes through steps 1 to {@code steps}, one message per step, all under
 * the same key on queue {@value #QUEUE}; the payload carries the step and the running total (the
 * sum of the steps done). Each step is one {@code job.completeWith}: it writes the step's effect
 * row to {@code step_effects} (a table without a unique constraint, so a step done twice is an
 * extra row), saves the checkpoint in {@code checkpoints}, and sends the next step's message under
 * the same key, in the transaction that acknowledges the current step.
 *
 * <p>Arguments, as {@code name=value}: {@code file}, {@code worker} (its name, written into each
 * effect row), {@code steps}, {@code leaseMs} (default 1,000) and {@code stepped=true} (each step,
 * after its rows are written and before it commits, prints {@code effect worker=... step=...
 * attempt=...} and waits for a line {@code next} on stdin). After each step it prints {@code
 * committed worker=... step=... result=... next=...}; once the last step committed it closes the
 * worker, prints {@code finished worker=...} and exits. It ends at once when stdin closes.
 */
public final class CheckpointWorkerMain {
  static final String QUEUE = "checkpointed";
  static final String JOB = "job-1";

  private final BlockingQueue<String> commands = new LinkedBlockingQueue<>();
  private final CountDownLatch finished = new CountDownLatch(1);
  private final String worker;
  private final int steps;
  private final boolean stepped;

  private CheckpointWorkerMain(ChildArgs args) {
    this.worker = args.required("worker");
    this.steps = Integer.parseInt(args.required("steps"));
    this.stepped = Boolean.parseBoolean(args.get("stepped", "false"));
  }

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    CheckpointWorkerMain w = new CheckpointWorkerMain(args);
    w.readCommands();
    Duration lease = Duration.ofMillis(Long.parseLong(args.get("leaseMs", "1000")));
    try (OnceOnly once = OnceOnly.builder().sqlite(Path.of(args.required("file"))).build()) {
      JobQueue queue = once.queue();
      Worker worker =
          Worker.builder(queue, QUEUE, job -> w.step(queue, job))
              .lease(lease)
              .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(50))
              .build()
              .start();
      System.out.println("ready worker=" + w.worker + " pid=" + ProcessHandle.current().pid());
      System.out.flush();
      w.finished.await();
      worker.close();
    }
    System.out.println("finished worker=" + w.worker);
    System.out.flush();
  }

  private void step(JobQueue queue, dev.onceonly.queue.Job job) throws Exception {
    int step = job.payload().get("step").asInt();
    long total = job.payload().get("total").asLong() + step;
    SendResult[] next = new SendResult[1];
    QueueResult r =
        job.completeWith(
            tx -> {
              insertEffect(tx, step);
              saveCheckpoint(tx, step, total);
              if (stepped) {
                System.out.println(
                    "effect worker="
                        + worker
                        + " step="
                        + step
                        + " attempt="
                        + job.delivery().attempt());
                System.out.flush();
                awaitNext();
              }
              if (step < steps) {
                next[0] =
                    queue.send(
                        tx, Message.of(QUEUE, JOB, Map.of("step", step + 1, "total", total)));
              }
              return null;
            });
    System.out.println(
        "committed worker="
            + worker
            + " step="
            + step
            + " result="
            + r
            + " next="
            + (next[0] == null ? "none" : next[0].status()));
    System.out.flush();
    if (step == steps && r instanceof QueueResult.Completed) {
      finished.countDown();
    }
  }

  private void insertEffect(Connection tx, int step) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO step_effects (job_id, step, worker) VALUES (?, ?, ?)")) {
      ps.setString(1, JOB);
      ps.setInt(2, step);
      ps.setString(3, worker);
      ps.executeUpdate();
    }
  }

  private static void saveCheckpoint(Connection tx, int step, long total) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("UPDATE checkpoints SET step = ?, total = ? WHERE job_id = ?")) {
      ps.setInt(1, step);
      ps.setLong(2, total);
      ps.setString(3, JOB);
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException("no checkpoint row for " + JOB);
      }
    }
  }

  private void awaitNext() throws InterruptedException {
    String line = commands.poll(60, TimeUnit.SECONDS);
    if (!"next".equals(line)) {
      throw new IllegalStateException("expected 'next' on stdin, got " + line);
    }
  }

  /** Hands stdin's lines to the stepped steps, and ends the process when stdin closes. */
  private void readCommands() {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    Thread t =
        new Thread(
            () -> {
              try {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  commands.add(line);
                }
              } catch (IOException e) {
                // the same as end of input
              }
              Runtime.getRuntime().halt(3);
            },
            "parent-watch");
    t.setDaemon(true);
    t.start();
  }
}
