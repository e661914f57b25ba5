package dev.onceonly.cli.demo;

import dev.onceonly.IntentPublisher;
import dev.onceonly.OnceOnly;
import dev.onceonly.cli.demo.ReportPipeline.ReportJob;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Worker;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/** The demo's jobs on the store's own SQL job queue, {@link ReportPipeline#QUEUE}. */
public final class SqlQueueTransport implements Transport {
  private final OnceOnly once;

  /**
   * Creates the transport.
   *
   * @param once the store whose queue carries the jobs
   */
  public SqlQueueTransport(OnceOnly once) {
    this.once = Objects.requireNonNull(once, "once");
  }

  @Override
  public String describe() {
    return "the SQL job queue";
  }

  @Override
  public SendResult publish(ReportJob job) {
    return ReportPipeline.publish(once.queue(), job);
  }

  @Override
  public void inject(List<Message> messages) {
    once.queue().sendAll(messages);
  }

  @Override
  public String crashOne(Duration lease, Step step) throws SQLException {
    List<Delivery> taken = once.queue().receive(ReportPipeline.QUEUE, 1, lease);
    if (taken.isEmpty()) {
      return "";
    }
    IntentMessage m = IntentMessage.decode(taken.get(0).payload());
    AtomicReference<String> answer = new AtomicReference<>("");
    // The step joins the transaction that acknowledges: a crash inside it undoes both.
    once.queue().complete(taken.get(0).lease(), tx -> answer.getAndSet(step.run(tx, m)));
    return answer.get();
  }

  @Override
  public Workers startWorkers(int count, Duration lease, Function<String, Progress> progress) {
    List<Worker> workers = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      workers.add(
          Worker.builder(
                  once.queue(),
                  ReportPipeline.QUEUE,
                  new ReportHandler(once, ReportPipeline.SCOPE, listener(progress, i)))
              .threads(2)
              .lease(lease)
              .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(50))
              .build()
              .start());
    }
    return () -> workers.forEach(Worker::close);
  }

  private static ReportHandler.Listener listener(Function<String, Progress> progress, int i) {
    Progress p = progress.apply("worker-" + i);
    return new ReportHandler.Listener() {
      @Override
      public void finished(Delivery d, ReportHandler.Result result, String detail) {
        p.finished(d.key(), d.attempt(), result);
      }
    };
  }

  @Override
  public long pendingOutsideStore() {
    return 0;
  }

  @Override
  public long unsettled() {
    return once.queue().depth(ReportPipeline.QUEUE);
  }

  @Override
  public IntentPublisher publisher() {
    return IntentMessage.publisher(once.queue(), ReportPipeline.QUEUE);
  }
}
