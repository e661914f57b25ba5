package dev.onceonly.internal.queue;

import static dev.onceonly.internal.queue.QueueNames.QUEUE;
import static dev.onceonly.internal.queue.QueueNames.check;
import static dev.onceonly.internal.queue.QueueNames.checkExisting;

import dev.onceonly.Bounds;
import dev.onceonly.Effect;
import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.internal.db.Database;
import dev.onceonly.internal.db.EffectConnection;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.receipts.SqlIntentStore;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.BatchHandler;
import dev.onceonly.queue.Completion;
import dev.onceonly.queue.DeadLetter;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueLimits;
import dev.onceonly.queue.QueuePause;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.SendConflictException;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Uniqueness;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** The {@link JobQueue} on SQL. */
public final class SqlJobQueue implements JobQueue {
  private final StoreContext core;
  private final QueueStatements sql;
  private final InstantColumns times;
  private final RetryPolicy policy;
  private final QueueSignals signals;
  private final String notifyChannel;
  private final String prefix;
  private final SqlSchedules schedules;
  private final Map<String, AtomicInteger> claimCounters;
  private final Map<String, Uniqueness> uniqueness;
  private final Map<String, Integer> limits;
  private final Map<String, Integer> partitionLimits;
  private final QueueSends sends;
  private final QueueDeadLetters dead;
  private final QueueClaims claims;
  private final QueueRateLimits rates;
  private final QueueEvents published;
  private final QueueBatches batches;
  private final QueueRenewals renewals;
  private final QueuePauses pauses;
  private final QueueReads reads;
  private final AttemptErrorLog errors;
  private final QueueAcks acks;
  private final java.util.concurrent.atomic.AtomicReference<DeadLetterHook> deadLetterHook;

  /**
   * Creates the queue.
   *
   * @param core the shared database, clock and mapper
   * @param prefix the validated table prefix
   * @param policy the retry policy for failed messages
   * @param signals in-process wake-ups shared by every queue of this instance
   * @param notifyChannel on PostgreSQL, the channel each send notifies (see {@link
   *     SendNotifications}); null for none
   * @param uniqueness the queues whose keys stay taken beyond their queued messages
   * @param limits the queues with a concurrency limit: the most messages leased at once
   * @param partitionLimits the queues with a limit per partition: the most messages of one
   *     partition leased at once
   * @param rateLimits the queues with a rate limit, their own or per partition
   */
  public SqlJobQueue(
      StoreContext core,
      String prefix,
      RetryPolicy policy,
      QueueSignals signals,
      String notifyChannel,
      Map<String, Uniqueness> uniqueness,
      Map<String, Integer> limits,
      Map<String, Integer> partitionLimits,
      RateLimits rateLimits) {
    this(
        core,
        prefix,
        policy,
        signals,
        notifyChannel,
        null,
        new java.util.concurrent.atomic.AtomicReference<>(),
        QueueClaims.counters(),
        Map.copyOf(uniqueness),
        Map.copyOf(limits),
        Map.copyOf(partitionLimits),
        new QueueRateLimits(core, prefix, rateLimits));
  }

  private SqlJobQueue(
      StoreContext core,
      String prefix,
      RetryPolicy policy,
      QueueSignals signals,
      String notifyChannel,
      SqlSchedules schedules,
      java.util.concurrent.atomic.AtomicReference<DeadLetterHook> deadLetterHook,
      Map<String, AtomicInteger> claimCounters,
      Map<String, Uniqueness> uniqueness,
      Map<String, Integer> limits,
      Map<String, Integer> partitionLimits,
      QueueRateLimits rates) {
    this.core = core;
    this.sql = new QueueStatements(prefix, core.database().sql());
    this.times = core.times();
    this.policy = Objects.requireNonNull(policy, "policy");
    this.signals = signals;
    this.prefix = prefix;
    this.notifyChannel = notifyChannel;
    this.schedules = schedules != null ? schedules : new SqlSchedules(core, prefix, this);
    this.claimCounters = claimCounters;
    this.uniqueness = uniqueness;
    this.limits = limits;
    this.partitionLimits = partitionLimits;
    this.sends = new QueueSends(core, sql, notifyChannel, uniqueness);
    this.deadLetterHook = deadLetterHook;
    this.errors = new AttemptErrorLog(core, prefix, core.attemptErrorsKept());
    this.dead = new QueueDeadLetters(core, sql, deadLetterHook, errors);
    this.rates = rates;
    this.claims =
        new QueueClaims(core, sql, policy, dead, claimCounters, limits, partitionLimits, rates);
    this.acks = new QueueAcks(core, sql, claims, errors);
    this.published = new QueueEvents(core.events(), signals, claims);
    this.batches = new QueueBatches(core.database(), this::ackEach, published);
    this.renewals = new QueueRenewals(core, sql, claims);
    this.pauses = new QueuePauses(core, prefix, signals);
    this.reads = new QueueReads(core, sql);
  }

  /** Returns a view of this queue with another retry policy, sharing its schedules. */
  public SqlJobQueue withPolicy(RetryPolicy other) {
    return new SqlJobQueue(
        core,
        prefix,
        other,
        signals,
        notifyChannel,
        schedules,
        deadLetterHook,
        claimCounters,
        uniqueness,
        limits,
        partitionLimits,
        rates);
  }

  /** {@return the schedules, fired by this queue's claims} */
  public dev.onceonly.queue.Schedules schedules() {
    return schedules;
  }

  /**
   * Sends a schedule's run, whose payload is stored canonical JSON already; a run has no sender, so
   * no traceparent.
   */
  SendResult insertStored(Connection c, Message message, String canonicalPayload)
      throws SQLException {
    SendResult result = sends.insert(c, QueueSends.stored(message, canonicalPayload), null);
    fireIfSent(result);
    return result;
  }

  @Override
  public SendResult send(String queue, String key, Object payload) {
    return send(Message.of(queue, key, payload));
  }

  @Override
  public SendResult send(Message message) {
    QueueSends.Prepared p = sends.prepare(message);
    SendResult result = core.database().writeOrJoin(c -> sends.insert(c, p, null));
    fireIfSent(result);
    return published.sent(result);
  }

  /** Wakes local workers for a message that was queued (committed, or in the caller's hands). */
  private void fireIfSent(SendResult result) {
    if (result.status() == SendResult.Status.SENT) {
      signals.fire(result.queue());
    }
  }

  @Override
  public List<SendResult> sendAll(List<Message> messages) {
    List<QueueSends.Prepared> prepared = messages.stream().map(sends::prepare).toList();
    List<SendResult> results =
        core.database()
            .writeOrJoin(
                c -> {
                  List<SendResult> out = new ArrayList<>(prepared.size());
                  for (QueueSends.Prepared p : prepared) {
                    out.add(sends.insert(c, p, null));
                  }
                  return out;
                });
    results.stream()
        .filter(r -> r.status() == SendResult.Status.SENT)
        .map(SendResult::queue)
        .distinct()
        .forEach(signals::fire);
    results.forEach(published::sent);
    return results;
  }

  @Override
  public SendResult send(Connection transaction, Message message) {
    Objects.requireNonNull(transaction, "transaction");
    QueueSends.Prepared p = sends.prepare(message);
    SendResult result = core.database().join(transaction, c -> sends.insert(c, p, null));
    fireIfSent(result); // before the caller commits: a hint; the worker's next poll finds it
    return published.sent(result);
  }

  /**
   * Sends on a connection already inside this store's open transaction, without a savepoint of its
   * own: for the internal steps (workflows) whose transaction fails as a whole.
   */
  public SendResult sendIn(Connection c, Message message) throws SQLException {
    return sendIn(c, message, core.traceparent());
  }

  /**
   * As {@link #sendIn(Connection, Message)}, with the trace context given rather than the current
   * thread's: a workflow's steps carry the trace of the run's start.
   *
   * @param c the connection, inside this store's open transaction
   * @param message the message
   * @param traceparent the W3C traceparent to store with it, or null
   * @return the send's answer
   * @throws SQLException if the database fails
   */
  public SendResult sendIn(Connection c, Message message, String traceparent) throws SQLException {
    QueueSends.Prepared p = sends.prepare(message);
    SendResult result =
        sends.insert(
            c,
            new QueueSends.Prepared(p.message(), p.payload(), p.fingerprint(), traceparent),
            null);
    fireIfSent(result);
    return published.sent(result);
  }

  @Override
  public SendResult sendLarge(Connection transaction, Message message, byte[] body) {
    Objects.requireNonNull(body, "body");
    QueueSends.Prepared p = sends.prepare(message);
    Database.Work<SendResult> work = c -> sends.insert(c, p, body);
    SendResult result =
        transaction == null
            ? core.database().writeOrJoin(work)
            : core.database().join(transaction, work);
    fireIfSent(result);
    return published.sent(result);
  }

  @Override
  public List<Delivery> receive(String queue, int max, Duration lease) {
    check("queue", queue, QUEUE);
    if (max <= 0 || max > QueueClaims.MAX_RECEIVE) {
      throw new IllegalArgumentException("max must be between 1 and " + QueueClaims.MAX_RECEIVE);
    }
    Bounds.positive(lease, "lease");
    long started = published.started();
    List<Integer> exhausted = new ArrayList<>();
    List<OnceOnlyEvent.ScheduleFired> fired = new ArrayList<>();
    boolean oldestFirst = claims.oldestFirst(queue);
    QueueRateLimits.Use use = new QueueRateLimits.Use();
    List<Delivery> claimed =
        core.database()
            .write(
                c ->
                    claims.claim(
                        c, queue, max, lease, oldestFirst, schedules, exhausted, fired, use));
    if (rates.limited(queue)) {
      rates.committed(queue, use);
    }
    if (!claimed.isEmpty()) {
      claims.claimed(queue, oldestFirst); // after the commit: a rolled-back claim took nothing
    }
    schedules.publish(fired); // after the commit, as the rest
    published.claimed(queue, started, exhausted, claimed.size());
    return claimed;
  }

  @Override
  public QueueResult renew(Lease lease, Duration extension) {
    Objects.requireNonNull(lease, "lease");
    Bounds.positive(extension, "extension");
    long started = published.started();
    QueueResult renewed = renewals.renew(lease, extension);
    return renewed instanceof QueueResult.LeaseLost
        ? published.settled(lease.queue(), started, renewed)
        : renewed;
  }

  @Override
  public QueueResult ack(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    return published.settled(
        lease.queue(), published.started(), core.database().writeOrJoin(c -> ackIn(c, lease)));
  }

  @Override
  public QueueResult ack(Connection transaction, Lease lease) {
    Objects.requireNonNull(transaction, "transaction");
    Objects.requireNonNull(lease, "lease");
    return published.settled(
        lease.queue(),
        published.started(),
        core.database().join(transaction, c -> ackIn(c, lease)));
  }

  /**
   * Acknowledges inside an open transaction, for the worker's transactional steps. On a limited
   * queue, only a lease that has not run out: its room may be another claim's now.
   */
  public QueueResult ackIn(Connection c, Lease lease) throws SQLException {
    return acks.ackIn(c, lease);
  }

  /** Carries the work's own exception through the transaction runner. */
  private static final class WorkFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    WorkFailed(Exception cause) {
      super(cause.getMessage(), cause, true, false);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public <X extends Exception> QueueResult complete(Lease lease, Effect<?, X> work) throws X {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(work, "work");
    try {
      return published.settled(
          lease.queue(),
          published.started(),
          core.database().writeOrJoin(c -> completeIn(c, lease, work)));
    } catch (WorkFailed e) {
      Throwable cause = e.getCause();
      for (Throwable s : e.getSuppressed()) {
        cause.addSuppressed(s);
      }
      throw (X) cause;
    }
  }

  /**
   * Acknowledges first, then runs the work, so that the work can only ever commit together with a
   * fenced acknowledgement that succeeded. The fenced {@code DELETE} is what decides whether this
   * holder still holds the lease, and on PostgreSQL it also locks the row until the transaction
   * ends: a claim's {@code FOR UPDATE SKIP LOCKED} passes the row by, so no one takes the message
   * over while the work runs, even if the lease runs out meanwhile; a claim that got there first
   * bumped the fence, and the {@code DELETE} (waiting for that claim to commit, then reading the
   * row again under READ COMMITTED) finds nothing. If the work throws, the transaction rolls back
   * and the message is back as it was. With the message gone, its key is free for the work's own
   * sends: a checkpoint's next step under the same key.
   */
  private QueueResult completeIn(Connection c, Lease lease, Effect<?, ?> work) throws SQLException {
    QueueResult acked = ackIn(c, lease);
    if (!(acked instanceof QueueResult.Completed)) {
      return acked; // nothing ran, nothing was changed
    }
    runWork(c, work);
    return acked;
  }

  /** Runs a completion's work on {@code c}, lent so that it cannot commit the acknowledgement. */
  private static void runWork(Connection c, Effect<?, ?> work) {
    EffectConnection lent = EffectConnection.lend(c);
    try {
      work.apply(lent);
      lent.check();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new WorkFailed(e);
    }
  }

  @Override
  public List<QueueResult> completeAll(List<Completion> completions) {
    List<Completion> copy = List.copyOf(completions);
    QueueResult[] failed = new QueueResult[copy.size()];
    while (true) {
      try {
        return published.settledAll(
            copy.stream().map(Completion::lease).toList(),
            published.started(),
            core.database().write(c -> completeEach(c, copy, failed)));
      } catch (BatchWorkFailed f) {
        // The transaction rolled back; run the others again without the failed one.
        failed[f.index] = new QueueResult.WorkFailed(copy.get(f.index).lease().key(), f.failure);
      }
    }
  }

  /**
   * Runs every completion of a batch not already known to fail, in one transaction and without
   * savepoints (the common case: nothing fails, one round trip per statement). A work that throws
   * aborts the whole transaction through {@link BatchWorkFailed}; {@link #completeAll} records it
   * and runs the rest again, so at most one more transaction per failing work.
   */
  private List<QueueResult> completeEach(
      Connection c, List<Completion> completions, QueueResult[] failed) throws SQLException {
    List<Lease> leases = new ArrayList<>(completions.size());
    for (int i = 0; i < completions.size(); i++) {
      if (failed[i] == null) {
        leases.add(completions.get(i).lease());
      }
    }
    List<QueueResult> acked = ackEach(c, leases);
    List<QueueResult> out = new ArrayList<>(completions.size());
    for (int i = 0, a = 0; i < completions.size(); i++) {
      Completion each = completions.get(i);
      if (failed[i] != null) {
        out.add(failed[i]);
        continue;
      }
      QueueResult ack = acked.get(a++);
      if (each.work() != null && ack instanceof QueueResult.Completed) {
        try {
          runWork(c, each.work());
        } catch (RuntimeException e) { // the work's own failure, wrapped or unchecked
          throw new BatchWorkFailed(i, e instanceof WorkFailed w ? (Exception) w.getCause() : e);
        }
      }
      out.add(ack);
    }
    return out;
  }

  /** Acknowledges {@code leases} inside an open transaction: {@link QueueAcks#ackEach}. */
  private List<QueueResult> ackEach(Connection c, List<Lease> leases) throws SQLException {
    return acks.ackEach(c, leases);
  }

  /**
   * Aborts a batch's transaction for one completion whose work threw. Its cause is that failure, so
   * a serialization failure or deadlock inside a work still makes the whole batch run again.
   */
  private static final class BatchWorkFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int index;
    final Exception failure;

    BatchWorkFailed(int index, Exception failure) {
      super(failure.getMessage(), failure, true, false);
      this.index = index;
      this.failure = failure;
    }
  }

  @Override
  public List<QueueResult> completeBatch(List<Delivery> deliveries, BatchHandler handler) {
    return batches.complete(deliveries, handler);
  }

  @Override
  public List<QueueResult> ackAll(List<Lease> leases) {
    List<Lease> copy = List.copyOf(leases);
    return published.settledAll(
        copy, published.started(), core.database().writeOrJoin(c -> ackEach(c, copy)));
  }

  @Override
  public QueueResult ackAndSend(Lease lease, List<Message> next) {
    Objects.requireNonNull(lease, "lease");
    List<QueueSends.Prepared> prepared = next.stream().map(sends::prepare).toList();
    long started = published.started();
    QueueResult result =
        core.database()
            .writeOrJoin(
                c -> {
                  QueueResult acked = ackIn(c, lease);
                  if (!(acked instanceof QueueResult.Completed)) {
                    return acked;
                  }
                  List<SendResult> refused = new ArrayList<>();
                  for (QueueSends.Prepared p : prepared) {
                    SendResult sent = sends.insert(c, p, null);
                    if (sent.status() == SendResult.Status.CONFLICT) {
                      refused.add(sent);
                    }
                  }
                  if (!refused.isEmpty()) {
                    // Rolls the acknowledgement back too: a step whose next message cannot be
                    // queued is not done, and must not disappear with its next step.
                    throw new SendConflictException(refused);
                  }
                  return acked;
                });
    if (result instanceof QueueResult.Completed) {
      prepared.forEach(p -> signals.fire(p.message().queue()));
      prepared.forEach(
          p ->
              published.sent(
                  new SendResult(SendResult.Status.SENT, p.message().queue(), p.message().key())));
    }
    return published.settled(lease.queue(), started, result);
  }

  @Override
  public boolean withdraw(String queue, String key) {
    check("queue", queue, QUEUE);
    checkExisting(key);
    return core.database().writeOrJoin(c -> withdrawIn(c, queue, key));
  }

  @Override
  public boolean withdraw(Connection transaction, String queue, String key) {
    Objects.requireNonNull(transaction, "transaction");
    check("queue", queue, QUEUE);
    checkExisting(key);
    return core.database().join(transaction, c -> withdrawIn(c, queue, key));
  }

  /** Removes a message by key on a connection inside this store's open transaction. */
  public boolean withdrawIn(Connection c, String queue, String key) throws SQLException {
    return acks.withdrawIn(c, queue, key);
  }

  @Override
  public QueueResult reschedule(Lease lease, Instant at) {
    Objects.requireNonNull(lease, "lease");
    Bounds.instant(at, "at");
    return published.settled(
        lease.queue(),
        published.started(),
        core.database()
            .write(
                c ->
                    update(c, sql.reschedule, at.toEpochMilli(), lease) == 1
                        ? new QueueResult.Rescheduled(lease.key(), at)
                        : lost(lease)));
  }

  @Override
  public QueueResult nack(Lease lease, String error) {
    return nack(lease, error, Duration.ZERO);
  }

  @Override
  public QueueResult nack(Lease lease, String error, Duration requiredWait) {
    Bounds.nonNegative(requiredWait, "requiredWait");
    return fail(lease, AttemptErrorLog.Failure.of(error), requiredWait);
  }

  @Override
  public QueueResult nack(Lease lease, Throwable error) {
    return fail(
        lease, AttemptErrorLog.Failure.of(Objects.requireNonNull(error, "error")), Duration.ZERO);
  }

  /** Records a failed attempt: retried by the policy, or with {@code wait} null dead-lettered. */
  private QueueResult fail(Lease lease, AttemptErrorLog.Failure f, Duration wait) {
    Objects.requireNonNull(lease, "lease");
    return published.settled(
        lease.queue(),
        published.started(),
        core.database()
            .write(
                c ->
                    wait == null
                        ? dead.deadLetter(c, lease, f)
                        : dead.fail(c, lease, f, wait, policy)));
  }

  @Override
  public QueueResult deadLetter(Lease lease, String error) {
    return fail(lease, AttemptErrorLog.Failure.of(error), null);
  }

  @Override
  public QueueResult deadLetter(Lease lease, Throwable error) {
    return fail(lease, AttemptErrorLog.Failure.of(Objects.requireNonNull(error, "error")), null);
  }

  @Override
  public List<dev.onceonly.queue.AttemptError> attemptErrors(String queue, String key) {
    if (queue == null) { // any queue name, as a find of a row that exists takes any key
      throw new dev.onceonly.InvalidRequestException("queue", "is required");
    }
    checkExisting(key);
    return errors.list(queue, key);
  }

  /**
   * Sets what is told, inside the same transaction, of every message moved to the dead letters by
   * this queue and its views. Set once, before the queue is used.
   */
  public void onDeadLetter(DeadLetterHook hook) {
    deadLetterHook.set(Objects.requireNonNull(hook, "hook"));
  }

  private int update(Connection c, String statement, Long first, Lease lease) throws SQLException {
    return QueueDeadLetters.update(times, c, statement, first, lease);
  }

  private static QueueResult lost(Lease lease) {
    return new QueueResult.LeaseLost(lease.key(), lease.fence());
  }

  @Override
  public Optional<byte[]> largePayload(Delivery delivery) {
    Objects.requireNonNull(delivery, "delivery");
    if (!delivery.largePayload()) {
      return Optional.empty();
    }
    return core.database()
        .read(
            c -> {
              try (PreparedStatement ps = c.prepareStatement(sql.selectPayload)) {
                ps.setLong(1, delivery.lease().messageId());
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next() ? Optional.of(rs.getBytes(1)) : Optional.<byte[]>empty();
                }
              }
            });
  }

  @Override
  public List<DeadLetter> deadLetters(String queue, int limit) {
    check("queue", queue, QUEUE);
    SqlIntentStore.checkLimit(limit);
    return dead.list(queue, limit);
  }

  @Override
  public Optional<DeadLetter> findDeadLetter(String queue, String key) {
    check("queue", queue, QUEUE);
    checkExisting(key);
    return dead.find(queue, key);
  }

  @Override
  public boolean requeue(String queue, String key) {
    return requeueListed(queue, key, null);
  }

  @Override
  public boolean requeue(String queue, String key, Instant deadAt) {
    return requeueListed(queue, key, Objects.requireNonNull(deadAt, "deadAt"));
  }

  private boolean requeueListed(String queue, String key, Instant deadAt) {
    check("queue", queue, QUEUE);
    checkExisting(key);
    boolean moved = dead.requeue(queue, key, deadAt);
    if (moved) {
      signals.fire(queue);
    }
    return moved;
  }

  @Override
  public QueueLimits limits(String queue) {
    check("queue", queue, QUEUE);
    return claims.limits(queue);
  }

  @Override
  public Duration rateLimitWait(String queue) {
    return rates.waitFor(queue);
  }

  @Override
  public boolean pause(String queue, String pausedBy, String reason) {
    return pauses.pause(queue, pausedBy, reason);
  }

  @Override
  public boolean resume(String queue) {
    return pauses.resume(queue);
  }

  @Override
  public Optional<QueuePause> paused(String queue) {
    return pauses.find(queue);
  }

  @Override
  public List<QueuePause> pausedQueues() {
    return pauses.list();
  }

  @Override
  public long depth(String queue) {
    check("queue", queue, QUEUE);
    return reads.depth(queue);
  }

  @Override
  public Optional<Instant> nextDue(String queue) {
    check("queue", queue, QUEUE);
    return reads.nextDue(queue);
  }

  @Override
  public Events events() {
    return core.events();
  }

  @Override
  public AutoCloseable onSend(Consumer<String> listener) {
    return signals.add(listener);
  }
}
