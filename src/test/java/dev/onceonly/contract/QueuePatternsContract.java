package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.Outcome;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The queue patterns, end to end on the library: waiting for several events before going on (a
 * join), and a periodic job that schedules its own next run. The outbox, delayed delivery and large
 * payloads are in {@link JobQueueContract}.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#withTransactionPooling")
public class QueuePatternsContract extends QueueContractSupport {
  static final String CHECKS = "order-check";
  static final String AGGREGATION = "aggregation";
  static final Duration LEASE = Duration.ofSeconds(30);
  static final Duration RECHECK = Duration.ofMinutes(1);

  /**
   * Queue pattern "wait for several events before continuing": order fulfilment needs both the
   * inventory and the payment confirmed.
   *
   * <ol>
   *   <li>An {@code orders} table keeps {@code inventory_status} and {@code payment_status}.
   *   <li>Each confirmation, in one transaction of its own, updates its column of the order and
   *       sends a check message to {@value #CHECKS} (outbox).
   *   <li>The check handler reads the order. With both confirmed it inserts a {@code shipments} row
   *       through a receipts step joined to the acknowledgement ({@code job.completeWith}); else it
   *       asks to be delivered again later ({@code job.retryAt}), which costs no attempt.
   * </ol>
   *
   * <p>The check message's key is {@code check-<order>} and its payload names only the order:
   * {@code {"order": "o-3"}}. It says "look at this order again", and the state it looks at lives
   * in the table. So when the second confirmation sends while the first check still waits (or is
   * being handled), its send is {@code REPEATED}, and that is right: the waiting check reads both
   * confirmations when it runs, and if it already read the order before the second commit, it
   * rescheduled itself and will read it again. Had the payload named the event ({@code "event":
   * "payment"}), the second send would be a {@code CONFLICT} that writes nothing, which every
   * producer would have to treat as success; a key per event would queue redundant checks. Once a
   * check is acknowledged its key is free, so a late duplicate check is queued and handled, and the
   * receipt keeps the shipment single.
   *
   * <p>End state: exactly one shipment row per order.
   */
  /**
   * Queue pattern: long work processed at most once: acknowledge the delivery on arrival and, in
   * the same transaction, send a watchdog message due after the work should be done; withdraw the
   * watchdog when the work is done. The work is never delivered twice; if the worker dies, the
   * watchdog arrives instead and says the work may not have finished.
   */
  @Test
  void atMostOnceAcknowledgesOnArrivalAndWithdrawsItsWatchdog() {
    String q = "long-work";
    Duration expected = Duration.ofMinutes(10);
    for (String job : List.of("done", "dies")) {
      once.queue().send(Message.of(q, job, Map.of("job", job)));
      Delivery d = only(once.queue().receive(q, 1, LEASE));
      Message watchdog =
          Message.of(q, "watchdog-" + job, Map.of("job", job))
              .deliverAt(clock.instant().plus(expected));
      assertThat(once.queue().ackAndSend(d.lease(), List.of(watchdog)))
          .isInstanceOf(QueueResult.Completed.class);
    }
    assertThat(once.queue().withdraw(q, "watchdog-done")).isTrue(); // "done" finished its work
    // "dies" never withdraws its watchdog: its worker crashed during the work.
    clock.advance(LEASE.multipliedBy(2));
    assertThat(once.queue().receive(q, 10, LEASE)).as("acknowledged: never redelivered").isEmpty();
    reopen();
    clock.advance(expected);
    Delivery alarm = only(once.queue().receive(q, 10, LEASE));
    assertThat(alarm.key()).isEqualTo("watchdog-dies");
    assertThat(once.queue().ack(alarm.lease())).isInstanceOf(QueueResult.Completed.class);
    assertThat(once.queue().withdraw(q, "watchdog-dies")).as("already gone").isFalse();
    assertThat(messages(q)).isZero();
  }

  @Test
  void aJoinShipsEachOrderOnceBothConfirmationsArrived() {
    db.exec(
        "CREATE TABLE orders (order_id VARCHAR(20) PRIMARY KEY,"
            + " inventory_status VARCHAR(20) NOT NULL, payment_status VARCHAR(20) NOT NULL)",
        "CREATE TABLE shipments (order_id VARCHAR(20) NOT NULL, shipped_at BIGINT NOT NULL)");
    for (int i = 0; i < 10; i++) {
      db.exec("INSERT INTO orders VALUES ('o-" + i + "', 'PENDING', 'PENDING')");
    }
    Handler check =
        job -> {
          String order = job.payload().get("order").asText();
          if (!bothConfirmed(order)) {
            job.retryAt(clock.instant().plus(RECHECK));
            return;
          }
          job.completeWith(tx -> ship(tx, order));
        };
    Worker worker =
        Worker.builder(once.queue(), CHECKS, check)
            .threads(2)
            .lease(LEASE)
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
            .build()
            .start();
    try {
      for (int i = 0; i < 5; i++) {
        assertThat(confirm("o-" + i, "inventory_status")).isEqualTo(SendResult.Status.SENT);
      }
      long recheckAt = T0.plus(RECHECK).toEpochMilli();
      Eventually.await(
          Duration.ofSeconds(30),
          "five checks waiting for their payment",
          () ->
              db.count(
                      "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND deliver_at = ?",
                      CHECKS,
                      db.at(recheckAt))
                  == 5);
      assertThat(db.count("SELECT COUNT(*) FROM shipments")).isZero();

      for (int i = 0; i < 5; i++) { // the first check still waits: same payload, REPEATED
        assertThat(confirm("o-" + i, "payment_status")).isEqualTo(SendResult.Status.REPEATED);
      }
      for (int i = 5; i < 10; i++) { // both at once; the check cannot finish between them
        assertThat(confirm("o-" + i, "payment_status")).isEqualTo(SendResult.Status.SENT);
        assertThat(confirm("o-" + i, "inventory_status")).isEqualTo(SendResult.Status.REPEATED);
      }
      // No check in flight before the clock moves: a handler that found an order unconfirmed
      // just before the move would otherwise reschedule from the moved clock, past the recheck.
      Eventually.await(
          Duration.ofSeconds(30),
          "every open check waiting for the recheck",
          () ->
              db.count(
                      "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ? AND deliver_at <> ?",
                      CHECKS,
                      db.at(recheckAt))
                  == 0);
      clock.advance(RECHECK);
      Eventually.await(Duration.ofSeconds(30), "checks done", () -> messages(CHECKS) == 0);

      // A producer retrying a confirmation after the check was acknowledged: a new check.
      assertThat(confirm("o-0", "payment_status")).isEqualTo(SendResult.Status.SENT);
      Eventually.await(Duration.ofSeconds(30), "late check done", () -> messages(CHECKS) == 0);
    } finally {
      worker.close();
    }

    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM shipments")).isEqualTo(10);
    assertThat(db.count("SELECT COUNT(DISTINCT order_id) FROM shipments")).isEqualTo(10);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts WHERE scope = 'orders'"))
        .isEqualTo(10);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
    assertThat(messages(CHECKS)).isZero();
  }

  /**
   * Queue pattern "perform an action periodically": the handler does its work, then acknowledges
   * the current run and schedules the next one in one transaction ({@code ackAndSend}). Each run,
   * the first holder stalls past its lease and a second one claims the same message; both finish
   * the work and race to schedule the next run behind a start gate. The work is a receipts step, so
   * it commits once; the loser's {@code ackAndSend} is {@code LeaseLost} and sends nothing, so
   * exactly one next run is ever queued, whether the next run has a key of its own or the same
   * fixed key.
   */
  @ParameterizedTest(name = "fixed key: {0}")
  @ValueSource(booleans = {false, true})
  void aPeriodicJobSchedulesItsNextRunOnceWhenTwoHoldersRace(boolean fixedKey) throws Exception {
    JobQueue q = once.queue();
    q.send(tick(1, fixedKey));
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int run = 1; run <= 3; run++) {
        Delivery stalled = only(q.receive(AGGREGATION, 1, LEASE));
        clock.advance(LEASE);
        Delivery current = only(q.receive(AGGREGATION, 1, LEASE));
        Instant nextRun = clock.instant().plus(Duration.ofHours(1));
        Message next = tick(run + 1, fixedKey).deliverAt(nextRun);

        CyclicBarrier gate = new CyclicBarrier(2);
        Future<QueueResult> a = pool.submit(() -> aggregate(stalled, "stalled", next, gate));
        Future<QueueResult> b = pool.submit(() -> aggregate(current, "current", next, gate));
        List<QueueResult> results =
            List.of(a.get(30, TimeUnit.SECONDS), b.get(30, TimeUnit.SECONDS));

        assertThat(results.get(0))
            .as("the stalled holder")
            .isInstanceOf(QueueResult.LeaseLost.class);
        assertThat(results.get(1))
            .as("the current holder")
            .isInstanceOf(QueueResult.Completed.class);
        assertThat(db.strings("SELECT payload FROM onceonly_messages WHERE queue = ?", AGGREGATION))
            .containsExactly("{\"run\":" + (run + 1) + "}");
        assertThat(q.nextDue(AGGREGATION)).contains(nextRun);
        clock.set(nextRun);
      }
    } finally {
      pool.shutdownNow();
    }

    reopen();
    assertThat(messages(AGGREGATION)).isEqualTo(1);
    assertThat(db.strings("SELECT message_key FROM effects ORDER BY message_key"))
        .containsExactly("run-1", "run-2", "run-3");
    assertThat(duplicatedEffects()).isZero();
    Delivery fourth = only(once.queue().receive(AGGREGATION, 1, LEASE));
    assertThat(fourth.key()).isEqualTo(fixedKey ? "hourly-aggregator" : "tick-4");
  }

  // ---- the join's application code ----------------------------------------------------------

  /** A confirmation: update the order and send its check, in one transaction of the caller's. */
  SendResult.Status confirm(String order, String column) {
    return db.inTransaction(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE orders SET " + column + " = 'CONFIRMED' WHERE order_id = ?")) {
            ps.setString(1, order);
            assertThat(ps.executeUpdate()).isEqualTo(1);
          }
          return once.queue()
              .send(c, Message.of(CHECKS, "check-" + order, Map.of("order", order)))
              .status();
        });
  }

  boolean bothConfirmed(String order) {
    return db.count(
            "SELECT COUNT(*) FROM orders WHERE order_id = ?"
                + " AND inventory_status = 'CONFIRMED' AND payment_status = 'CONFIRMED'",
            order)
        == 1;
  }

  Outcome<Long> ship(Connection tx, String order) throws SQLException {
    return once.receipts()
        .execute(
            tx,
            IntentKey.of("orders", "ship-" + order),
            "ship_order",
            Map.of("order", order),
            Long.class,
            c -> {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "INSERT INTO shipments (order_id, shipped_at) VALUES (?, ?)")) {
                ps.setString(1, order);
                ps.setLong(2, clock.millis());
                return (long) ps.executeUpdate();
              }
            });
  }

  // ---- the periodic job's application code --------------------------------------------------

  static Message tick(int run, boolean fixedKey) {
    return Message.of(
        AGGREGATION, fixedKey ? "hourly-aggregator" : "tick-" + run, Map.of("run", run));
  }

  /** The handler of one run: the aggregation (a receipts step), then ack-and-send the next run. */
  QueueResult aggregate(Delivery d, String holder, Message next, CyclicBarrier gate)
      throws Exception {
    int run = d.payload().get("run").asInt();
    once.receipts()
        .execute(
            IntentKey.of("aggregator", "run-" + run),
            "aggregate_hour",
            Map.of("run", run),
            String.class,
            c -> insertEffect(c, "run-" + run, holder));
    gate.await(30, TimeUnit.SECONDS);
    return once.queue().ackAndSend(d.lease(), List.of(next));
  }
}
