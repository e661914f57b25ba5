package dev.onceonly.cli.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.CanonicalizationException;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.cli.demo.Reports.Report;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.Job;
import dev.onceonly.queue.QueueResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The report workshop's consumer as a {@link Handler}: one report row per intent, written in the
 * same transaction as its receipt and the message's acknowledgement.
 *
 * <p>For each delivery: the body must be an intent message for {@link Reports#OPERATION} in the
 * workshop's scope, and its job must be registered (the workshop refuses an unregistered job too);
 * then, inside {@link Job#completeWith}, the receipts step checks the samples against the schema
 * (the store's validator) and against the registered intent, and only for a new intent inserts the
 * report. {@link Outcome.Created} and {@link Outcome.Repeated} commit with the acknowledgement.
 * Anything else (a body that is not an intent message, a schema violation, an unregistered job,
 * samples that differ from the registered ones) is kept as a rejection first and acknowledged
 * after, so nothing is lost silently and a hostile message is not retried. Failures of the database
 * propagate, and the worker retries.
 *
 * <p>Whether a job is registered is read before the transaction: intents are registered before they
 * are published and are not removed while their receipts are kept, so the answer cannot change
 * underneath. Thread-safe.
 */
public final class ReportHandler implements Handler {
  /** The longest delivery id the rejection store takes (a message key may be longer). */
  private static final int MAX_DELIVERY_ID = 200;

  private final OnceOnly once;
  private final String scope;
  private final Listener listener;

  /** What became of one delivery. */
  public enum Result {
    /** The report was written now, with its receipt, and the message acknowledged. */
    CREATED,
    /** The report existed: its receipt answered, nothing was written, the message acknowledged. */
    REPEATED,
    /** The message was kept as a rejection and acknowledged. */
    REJECTED,
    /** The lease was taken over before the work ran; another holder finishes the message. */
    LEASE_LOST
  }

  /**
   * Watches the handler's progress, for tests and demos. Called on worker threads; {@link #effect}
   * runs inside the open write transaction, possibly on another worker's thread.
   */
  public interface Listener {
    /** A delivery was claimed; nothing was done with it yet. */
    default void claimed(Delivery delivery) {}

    /** The report row of {@code key} was inserted and is not committed yet. */
    default void effect(Delivery delivery, IntentKey key) {}

    /** The delivery is settled (committed, or rejected and about to be acknowledged). */
    default void finished(Delivery delivery, Result result, String detail) {}
  }

  /**
   * Creates the handler.
   *
   * @param once the store, opened with {@link ReportPipeline#open}
   * @param scope the only scope this receiver serves
   * @param listener told about each delivery
   */
  public ReportHandler(OnceOnly once, String scope, Listener listener) {
    this.once = Objects.requireNonNull(once, "once");
    this.scope = Objects.requireNonNull(scope, "scope");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /** Thrown from inside the transaction to leave it without writing anything. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String reason) {
      super(reason, null, false, false);
    }
  }

  @Override
  public void handle(Job job) throws SQLException {
    Delivery delivery = job.delivery();
    listener.claimed(delivery);
    String refusal;
    try {
      refusal = process(job);
    } catch (Refused | InvalidRequestException | CanonicalizationException e) {
      refusal = e.getMessage();
    }
    if (refusal != null) {
      // Kept before the acknowledgement: if this process dies in between, the message comes back
      // and the same delivery id finds the rejection already recorded.
      once.rejections().record(deliveryId(delivery), delivery.payload().toString(), refusal);
      listener.finished(delivery, Result.REJECTED, refusal);
    }
  }

  /** Returns why the delivery is refused, or null once it has been completed. */
  private String process(Job job) throws SQLException {
    Delivery delivery = job.delivery();
    IntentMessage message = IntentMessage.decode(job.payload());
    if (!scope.equals(message.key().scope())) {
      return "scope " + message.key().scope() + " is not served here";
    }
    if (!Reports.OPERATION.equals(message.operation())) {
      return "unknown operation " + message.operation();
    }
    if (once.intents().find(message.key()).isEmpty()) {
      return "no registered intent for " + message.key();
    }
    AtomicReference<Outcome<Report>> outcome = new AtomicReference<>();
    QueueResult completion =
        job.completeWith(
            tx -> {
              Outcome<Report> o =
                  once.receipts()
                      .execute(
                          tx,
                          message.key(),
                          message.operation(),
                          message.arguments(),
                          Report.class,
                          c -> insert(c, delivery, message.key(), message.arguments()));
              if (o instanceof Outcome.Conflict || o instanceof Outcome.Expired) {
                // Undoes the acknowledgement: the rejection must be kept before it.
                throw new Refused(describe(o));
              }
              outcome.set(o);
              return o;
            });
    if (completion instanceof QueueResult.LeaseLost) {
      listener.finished(delivery, Result.LEASE_LOST, "lease lost before the work ran");
    } else {
      Outcome<Report> o = outcome.get();
      listener.finished(
          delivery,
          o instanceof Outcome.Created ? Result.CREATED : Result.REPEATED,
          String.valueOf(o.resultOrThrow()));
    }
    return null;
  }

  private Report insert(Connection c, Delivery delivery, IntentKey key, JsonNode arguments)
      throws SQLException {
    Report report = insertReport(c, key, arguments);
    listener.effect(delivery, key);
    return report;
  }

  /** Inserts the report row of a job whose arguments the store's validator accepted. */
  static Report insertReport(Connection c, IntentKey key, JsonNode arguments) throws SQLException {
    Report report = Report.of(ReportPipeline.samples(arguments));
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO reports (job_id, scope, sample_count, minimum, maximum, mean)"
                + " VALUES (?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, key.key());
      ps.setString(2, key.scope());
      ps.setInt(3, report.count());
      ps.setInt(4, report.minimum());
      ps.setInt(5, report.maximum());
      ps.setDouble(6, report.mean());
      ps.executeUpdate();
    }
    return report;
  }

  private static String describe(Outcome<?> o) {
    if (o instanceof Outcome.Conflict<?> c) {
      return "the message does not match the registered intent "
          + c.key()
          + ": registered "
          + c.stored()
          + ", received "
          + c.requested();
    }
    return "the receipt of " + o.key() + " has expired; the job may not run again";
  }

  /**
   * Returns the id a rejection is recorded under: the queue, the message key and the message's row
   * id, which stays the same across redeliveries of one message (so recording is idempotent) and
   * differs for a later message with the same key.
   */
  public static String deliveryId(Delivery delivery) {
    String id = "#" + delivery.lease().messageId();
    String name = delivery.queue() + "/" + delivery.key();
    int room = MAX_DELIVERY_ID - id.length();
    return (name.length() <= room ? name : name.substring(0, room - 1) + "\u2026") + id;
  }
}
