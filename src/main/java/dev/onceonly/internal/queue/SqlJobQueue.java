package dev.onceonly.internal.queue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.Bounds;
import dev.onceonly.Effect;
import dev.onceonly.Fingerprint;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.internal.db.Database;
import dev.onceonly.internal.db.EffectConnection;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.jcs.Fingerprints;
import dev.onceonly.internal.receipts.SqlIntentStore;
import dev.onceonly.internal.receipts.SqlRejectionStore;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.Completion;
import dev.onceonly.queue.DeadLetter;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.QueueResult;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.SendConflictException;
import dev.onceonly.queue.SendResult;
import dev.onceonly.queue.Uniqueness;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/** The {@link JobQueue} on SQL. */
public final class SqlJobQueue implements JobQueue {
  static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");
  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@/-]{0,299}");
  private static final int MAX_RECEIVE = 1000;
  private static final int MAX_ERROR_CHARS = 2000;

  private final StoreContext core;
  private final QueueStatements sql;
  private final InstantColumns times;
  private final RetryPolicy policy;
  private final QueueSignals signals;
  private final String notifyChannel;
  private final String prefix;
  private final SqlSchedules schedules;
  private final AtomicLong claims;
  private final Map<String, Uniqueness> uniqueness;
  private final Map<String, Integer> limits;
  private final Map<String, Integer> partitionLimits;

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
   */
  public SqlJobQueue(
      StoreContext core,
      String prefix,
      RetryPolicy policy,
      QueueSignals signals,
      String notifyChannel,
      Map<String, Uniqueness> uniqueness,
      Map<String, Integer> limits,
      Map<String, Integer> partitionLimits) {
    this(
        core,
        prefix,
        policy,
        signals,
        notifyChannel,
        null,
        new AtomicLong(),
        Map.copyOf(uniqueness),
        Map.copyOf(limits),
        Map.copyOf(partitionLimits));
  }

  private SqlJobQueue(
      StoreContext core,
      String prefix,
      RetryPolicy policy,
      QueueSignals signals,
      String notifyChannel,
      SqlSchedules schedules,
      AtomicLong claims,
      Map<String, Uniqueness> uniqueness,
      Map<String, Integer> limits,
      Map<String, Integer> partitionLimits) {
    this.core = core;
    this.sql = new QueueStatements(prefix, core.database().sql());
    this.times = core.times();
    this.policy = Objects.requireNonNull(policy, "policy");
    this.signals = signals;
    this.prefix = prefix;
    this.notifyChannel = notifyChannel;
    this.schedules = schedules != null ? schedules : new SqlSchedules(core, prefix, this);
    this.claims = claims;
    this.uniqueness = uniqueness;
    this.limits = limits;
    this.partitionLimits = partitionLimits;
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
        claims,
        uniqueness,
        limits,
        partitionLimits);
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
    byte[] canonical = canonicalPayload.getBytes(StandardCharsets.UTF_8);
    SendResult result =
        insert(
            c,
            new Prepared(
                message, canonicalPayload, Fingerprints.of(message.queue(), canonical), null),
            null);
    fireIfSent(result);
    return result;
  }

  private record Prepared(
      Message message, String payload, Fingerprint fingerprint, String traceparent) {}

  private Prepared prepare(Message message) {
    Objects.requireNonNull(message, "message");
    check("queue", message.queue(), QUEUE);
    check("key", message.key(), KEY);
    JsonNode tree = core.requests().toTree(message.payload(), "payload");
    byte[] canonical = core.requests().canonicalizer().canonicalize(tree);
    return new Prepared(
        message,
        new String(canonical, StandardCharsets.UTF_8),
        Fingerprints.of(message.queue(), canonical),
        core.traceparent());
  }

  static void check(String field, String value, Pattern pattern) {
    if (value == null || !pattern.matcher(value).matches()) {
      throw new InvalidRequestException(field, "must match " + pattern.pattern());
    }
  }

  @Override
  public SendResult send(String queue, String key, Object payload) {
    return send(Message.of(queue, key, payload));
  }

  @Override
  public SendResult send(Message message) {
    Prepared p = prepare(message);
    SendResult result = core.database().writeOrJoin(c -> insert(c, p, null));
    fireIfSent(result);
    return sent(result);
  }

  /** Publishes a send's answer. */
  private SendResult sent(SendResult result) {
    if (core.events().enabled()) {
      core.events()
          .publish(
              new OnceOnlyEvent.MessageSent(
                  result.queue(), result.status().name().toLowerCase(Locale.ROOT)));
    }
    return result;
  }

  /** When a settlement started, for its event's duration; 0 when no one listens. */
  private long started() {
    return core.events().enabled() ? System.nanoTime() : 0;
  }

  /**
   * Publishes how a claimed message was settled, and returns the result. Callers pass {@link
   * #started()} before the expression that settles (arguments are evaluated left to right). A
   * settlement that ended a lease of a limited queue also wakes this instance's workers of the
   * queue: their claims may have found the limit full, and they would otherwise wait out their idle
   * backoff.
   */
  private QueueResult settled(String queue, long started, QueueResult result) {
    if (!(result instanceof QueueResult.LeaseLost || result instanceof QueueResult.WorkFailed)
        && (limits.containsKey(queue) || partitionLimits.containsKey(queue))) {
      signals.fire(queue);
    }
    Events events = core.events();
    if (!events.enabled()) {
      return result;
    }
    String kind;
    int attempts = 0;
    if (result instanceof QueueResult.Completed) {
      kind = "completed";
    } else if (result instanceof QueueResult.Retrying r) {
      kind = "retrying";
      attempts = r.attempts();
    } else if (result instanceof QueueResult.DeadLettered d) {
      kind = "dead_lettered";
      attempts = d.attempts();
    } else if (result instanceof QueueResult.Rescheduled) {
      kind = "rescheduled";
    } else if (result instanceof QueueResult.LeaseLost) {
      kind = "lease_lost";
    } else if (result instanceof QueueResult.WorkFailed) {
      kind = "work_failed";
    } else {
      return result; // renewed: not a settlement
    }
    events.publish(
        new OnceOnlyEvent.MessageSettled(
            queue,
            kind,
            attempts,
            Duration.ofNanos(started == 0 ? 0 : System.nanoTime() - started),
            Instant.now()));
    return result;
  }

  private List<QueueResult> settledAll(
      List<Lease> leases, long started, List<QueueResult> results) {
    for (int i = 0; i < results.size(); i++) {
      settled(leases.get(i).queue(), started, results.get(i));
    }
    return results;
  }

  /** Wakes local workers for a message that was queued (committed, or in the caller's hands). */
  private void fireIfSent(SendResult result) {
    if (result.status() == SendResult.Status.SENT) {
      signals.fire(result.queue());
    }
  }

  @Override
  public List<SendResult> sendAll(List<Message> messages) {
    List<Prepared> prepared = messages.stream().map(this::prepare).toList();
    List<SendResult> results =
        core.database()
            .writeOrJoin(
                c -> {
                  List<SendResult> out = new ArrayList<>(prepared.size());
                  for (Prepared p : prepared) {
                    out.add(insert(c, p, null));
                  }
                  return out;
                });
    results.stream()
        .filter(r -> r.status() == SendResult.Status.SENT)
        .map(SendResult::queue)
        .distinct()
        .forEach(signals::fire);
    results.forEach(this::sent);
    return results;
  }

  @Override
  public SendResult send(Connection transaction, Message message) {
    Objects.requireNonNull(transaction, "transaction");
    Prepared p = prepare(message);
    SendResult result = core.database().join(transaction, c -> insert(c, p, null));
    fireIfSent(result); // before the caller commits: a hint; the worker's next poll finds it
    return sent(result);
  }

  @Override
  public SendResult sendLarge(Connection transaction, Message message, byte[] body) {
    Objects.requireNonNull(body, "body");
    Prepared p = prepare(message);
    Database.Work<SendResult> work = c -> insert(c, p, body);
    SendResult result =
        transaction == null
            ? core.database().writeOrJoin(work)
            : core.database().join(transaction, work);
    fireIfSent(result);
    return sent(result);
  }

  /** Sends inside an open transaction; also used by ackAndSend and the reconciler. */
  SendResult insert(Connection c, Prepared p, byte[] body) throws SQLException {
    Message m = p.message();
    String ref = body == null ? null : UUID.randomUUID().toString();
    long now = core.clock().millis();
    Uniqueness unique = uniqueness.getOrDefault(m.queue(), DEFAULT_UNIQUENESS);
    String taken = takenBy(c, unique, m, now);
    if (taken != null) {
      return new SendResult(
          p.fingerprint().toString().equals(taken)
              ? SendResult.Status.REPEATED
              : SendResult.Status.CONFLICT,
          m.queue(),
          m.key());
    }
    try (PreparedStatement ps = c.prepareStatement(sql.insertMessage)) {
      ps.setString(1, m.queue());
      ps.setString(2, m.key());
      ps.setString(3, p.fingerprint().toString());
      ps.setString(4, p.payload());
      ps.setString(5, ref);
      times.set(ps, 6, m.deliverAt() == null ? now : m.deliverAt().toEpochMilli());
      times.set(ps, 7, now);
      ps.setInt(8, m.priority());
      ps.setString(9, p.traceparent());
      ps.setString(10, m.partition());
      if (ps.executeUpdate() == 1) {
        insertPayload(c, ref, body, now);
        take(c, unique, p, now);
        if (notifyChannel != null) {
          SendNotifications.notifySent(c, notifyChannel, m.queue());
        }
        return new SendResult(SendResult.Status.SENT, m.queue(), m.key());
      }
    }
    String stored = fingerprintOf(c, m.queue(), m.key());
    SendResult.Status status =
        p.fingerprint().toString().equals(stored)
            ? SendResult.Status.REPEATED
            : SendResult.Status.CONFLICT;
    return new SendResult(status, m.queue(), m.key());
  }

  private static final Uniqueness DEFAULT_UNIQUENESS = Uniqueness.whileQueued();

  /**
   * The fingerprint that keeps {@code m}'s key taken beyond its queued message, as the queue's
   * {@link Uniqueness} says: a send within its period, or a dead letter; null when the key is free.
   */
  private String takenBy(Connection c, Uniqueness unique, Message m, long now) throws SQLException {
    if (unique.period().isPresent()) {
      String fingerprint = lookup(c, sql.takenKey, m, now);
      if (fingerprint != null) {
        return fingerprint;
      }
    }
    return unique.deadLetters() ? lookup(c, sql.deadKey, m, null) : null;
  }

  private String lookup(Connection c, String query, Message m, Long now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(query)) {
      ps.setString(1, m.queue());
      ps.setString(2, m.key());
      if (now != null) {
        times.set(ps, 3, now);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  /** Keeps a sent key taken for the queue's period, and now and then sweeps expired ones. */
  private void take(Connection c, Uniqueness unique, Prepared p, long now) throws SQLException {
    if (unique.period().isEmpty()) {
      return;
    }
    Message m = p.message();
    try (PreparedStatement ps = c.prepareStatement(sql.takeKey)) {
      ps.setString(1, m.queue());
      ps.setString(2, m.key());
      ps.setString(3, p.fingerprint().toString());
      times.set(ps, 4, now + unique.period().get().toMillis());
      ps.executeUpdate();
    }
    if (ThreadLocalRandom.current().nextInt(64) == 0) {
      try (PreparedStatement ps = c.prepareStatement(sql.sweepTakenKeys)) {
        ps.setString(1, m.queue());
        ps.setString(2, m.queue());
        times.set(ps, 3, now);
        ps.executeUpdate();
      }
    }
  }

  private void insertPayload(Connection c, String ref, byte[] body, long now) throws SQLException {
    if (ref == null) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(sql.insertPayload)) {
      ps.setString(1, ref);
      ps.setBytes(2, body);
      times.set(ps, 3, now);
      ps.executeUpdate();
    }
  }

  private String fingerprintOf(Connection c, String queue, String key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.messageFingerprint)) {
      ps.setString(1, queue);
      ps.setString(2, key);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : "";
      }
    }
  }

  @Override
  public List<Delivery> receive(String queue, int max, Duration lease) {
    check("queue", queue, QUEUE);
    if (max <= 0 || max > MAX_RECEIVE) {
      throw new IllegalArgumentException("max must be between 1 and " + MAX_RECEIVE);
    }
    Bounds.positive(lease, "lease");
    long started = core.events().enabled() ? System.nanoTime() : 0;
    List<Integer> exhausted = new ArrayList<>();
    List<OnceOnlyEvent.ScheduleFired> fired = new ArrayList<>();
    List<Delivery> claimed =
        core.database().write(c -> claim(c, queue, max, lease, exhausted, fired));
    schedules.publish(fired); // after the commit, as the rest
    if (started != 0) {
      // After the commit: what a rolled-back (or retried) claim did is never published.
      exhausted.forEach(
          attempts ->
              core.events()
                  .publish(
                      new OnceOnlyEvent.MessageSettled(
                          queue,
                          "dead_lettered",
                          attempts,
                          Duration.ofNanos(System.nanoTime() - started),
                          Instant.now())));
      if (!claimed.isEmpty()) {
        core.events()
            .publish(
                new OnceOnlyEvent.MessagesClaimed(
                    queue,
                    claimed.size(),
                    Duration.ofNanos(System.nanoTime() - started),
                    Instant.now()));
      }
    }
    return claimed;
  }

  private List<Delivery> claim(
      Connection c,
      String queue,
      int max,
      Duration lease,
      List<Integer> deadLettered,
      List<OnceOnlyEvent.ScheduleFired> fired)
      throws SQLException {
    deadLettered.clear(); // a transaction run again starts over
    fired.clear();
    Instant now = core.clock().instant();
    schedules.fireIfDue(c, queue, now, fired);
    Integer limit = limits.get(queue);
    Integer perPartition = partitionLimits.get(queue);
    if (limit != null || perPartition != null) {
      core.database().lockKey(c, LIMIT_LOCK_SPACE, queue);
    }
    if (limit != null) {
      max = Math.min(max, room(c, queue, limit, now));
      if (max <= 0) {
        return List.of();
      }
    }
    Instant until = now.plus(lease);
    List<Delivery> out = new ArrayList<>();
    List<Object[]> exhausted = new ArrayList<>();
    // One claim in four takes the oldest due messages whatever their priority: no starvation.
    boolean oldestFirst = claims.incrementAndGet() % 4 == 0;
    List<Ranked> ranked = new ArrayList<>();
    if (perPartition != null) {
      claimPartitioned(c, queue, now, max, until, perPartition, oldestFirst, ranked, exhausted);
    } else {
      try (PreparedStatement ps = c.prepareStatement(oldestFirst ? sql.claimOldest : sql.claim)) {
        core.database().sql().bindClaim(ps, queue, now.toEpochMilli(), max, until.toEpochMilli());
        try (ResultSet rs = ps.executeQuery()) {
          readClaimed(rs, queue, until, oldestFirst, ranked, exhausted);
        }
      }
    }
    for (Object[] e : exhausted) {
      String last = (String) e[2];
      int delivered = ((int) e[1]) - 1; // this claim was not a delivery
      moveToDeadLetters(
          c,
          (Lease) e[0],
          delivered,
          "no attempts left after " + delivered + (last == null ? "" : ": " + last),
          now);
      deadLettered.add(delivered);
    }
    // In claim order: by priority (unless this claim took the oldest), then as sent.
    ranked.sort(
        Comparator.comparingInt((Ranked r) -> -r.priority())
            .thenComparingLong(r -> r.delivery().lease().messageId()));
    ranked.forEach(r -> out.add(r.delivery()));
    return out;
  }

  private record Ranked(int priority, Delivery delivery) {}

  private static Long[] boxed(long[] values) {
    Long[] out = new Long[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = values[i];
    }
    return out;
  }

  /** Reads the rows a claim returned: deliveries, and the messages that have no attempt left. */
  private void readClaimed(
      ResultSet rs,
      String queue,
      Instant until,
      boolean oldestFirst,
      List<Ranked> ranked,
      List<Object[]> exhausted)
      throws SQLException {
    while (rs.next()) {
      Lease l = new Lease(queue, rs.getString(2), rs.getLong(1), rs.getLong(5), until);
      int attempt = rs.getInt(6);
      if (attempt > policy.maxAttempts()) {
        exhausted.add(new Object[] {l, attempt, rs.getString(8)});
        continue;
      }
      ranked.add(
          new Ranked(
              oldestFirst ? 0 : rs.getInt(9),
              new Delivery(
                  l,
                  core.readTree(rs.getString(3)),
                  attempt,
                  rs.getString(4) != null,
                  times.instant(rs, 7),
                  rs.getString(10))));
    }
  }

  /** The most windows one claim of a queue with a limit per partition reads. */
  private static final int PARTITION_WINDOWS = 8;

  /**
   * Claims up to {@code max} due messages of a queue with a limit per partition, in windows, after
   * counting the live leases of each partition: each window reads the next due messages in claim
   * order that are not in a full partition, takes those whose partition still has room (counting
   * what this claim took), and leases them; leased, they are no longer due, and a partition that
   * filled is left out of the next window. It stops when a window came back short (no more due
   * messages outside full partitions), or took nothing, or after {@value #PARTITION_WINDOWS}
   * windows. The claims of the queue are serialized (see {@link #claim}), so what a window read is
   * still true when it leases.
   */
  private void claimPartitioned(
      Connection c,
      String queue,
      Instant now,
      int max,
      Instant until,
      int perPartition,
      boolean oldestFirst,
      List<Ranked> ranked,
      List<Object[]> exhausted)
      throws SQLException {
    int remaining = max;
    Map<String, Integer> leases = new java.util.HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(sql.partitionLeases)) {
      ps.setString(1, queue);
      times.set(ps, 2, now.toEpochMilli());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          leases.put(rs.getString(1), rs.getInt(2));
        }
      }
    }
    for (int window = 0; window < PARTITION_WINDOWS && remaining > 0; window++) {
      int size = Math.min(MAX_RECEIVE, remaining * 4 + 16);
      List<Long> take = new ArrayList<>();
      int read = 0;
      try (PreparedStatement ps =
          c.prepareStatement(oldestFirst ? sql.partitionWindowOldest : sql.partitionWindow)) {
        long at = now.toEpochMilli();
        ps.setString(1, queue);
        times.set(ps, 2, at);
        ps.setString(3, queue);
        times.set(ps, 4, at);
        ps.setInt(5, perPartition);
        ps.setInt(6, size);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next() && take.size() < remaining) {
            read++;
            String partition = rs.getString(2);
            if (partition == null) {
              take.add(rs.getLong(1));
            } else if (leases.getOrDefault(partition, 0) < perPartition) {
              leases.merge(partition, 1, Integer::sum);
              take.add(rs.getLong(1));
            }
          }
        }
      }
      for (int from = 0; from < take.size(); from += QueueStatements.CLAIM_IDS) {
        List<Long> chunk =
            take.subList(from, Math.min(take.size(), from + QueueStatements.CLAIM_IDS));
        try (PreparedStatement ps = c.prepareStatement(sql.claimIds)) {
          long at = now.toEpochMilli();
          times.set(ps, 1, until.toEpochMilli());
          times.set(ps, 2, at);
          for (int i = 0; i < QueueStatements.CLAIM_IDS; i++) {
            ps.setLong(3 + i, chunk.get(Math.min(i, chunk.size() - 1)));
          }
          times.set(ps, 3 + QueueStatements.CLAIM_IDS, at);
          try (ResultSet rs = ps.executeQuery()) {
            readClaimed(rs, queue, until, oldestFirst, ranked, exhausted);
          }
        }
      }
      remaining -= take.size();
      if (read < size || take.isEmpty()) {
        return; // no more due messages outside full partitions, or all taken
      }
    }
  }

  /** The advisory lock space of concurrency limits (an arbitrary constant: "OnceLimt" folded). */
  private static final int LIMIT_LOCK_SPACE = 0x4f6e4c6d;

  /**
   * How many more messages of a limited queue may be leased now: its limit less the live leases of
   * every instance. On PostgreSQL the claims of one limited queue take a transaction lock on it
   * first (see {@link #claim}), so that two instances cannot both count the same room; SQLite's
   * writer is alone.
   */
  private int room(Connection c, String queue, int limit, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.leasedCount)) {
      ps.setString(1, queue);
      times.set(ps, 2, now.toEpochMilli());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return limit - rs.getInt(1);
      }
    }
  }

  @Override
  public QueueResult renew(Lease lease, Duration extension) {
    Objects.requireNonNull(lease, "lease");
    Bounds.positive(extension, "extension");
    long started = started();
    QueueResult renewed = renewIn(lease, extension);
    return renewed instanceof QueueResult.LeaseLost
        ? settled(lease.queue(), started, renewed)
        : renewed;
  }

  private QueueResult renewIn(Lease lease, Duration extension) {
    return core.database()
        .write(
            c -> {
              Instant until = core.clock().instant().plus(extension);
              int n = update(c, sql.renew, until.toEpochMilli(), lease);
              return n == 1
                  ? new QueueResult.Renewed(
                      new Lease(
                          lease.queue(), lease.key(), lease.messageId(), lease.fence(), until))
                  : lost(lease);
            });
  }

  @Override
  public QueueResult ack(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    return settled(lease.queue(), started(), core.database().writeOrJoin(c -> ackIn(c, lease)));
  }

  @Override
  public QueueResult ack(Connection transaction, Lease lease) {
    Objects.requireNonNull(transaction, "transaction");
    Objects.requireNonNull(lease, "lease");
    return settled(
        lease.queue(), started(), core.database().join(transaction, c -> ackIn(c, lease)));
  }

  /** Acknowledges inside an open transaction, for the worker's transactional steps. */
  public QueueResult ackIn(Connection c, Lease lease) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.ack)) {
      ps.setLong(1, lease.messageId());
      ps.setLong(2, lease.fence());
      String ref;
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return lost(lease);
        }
        ref = rs.getString(1);
      }
      deletePayload(c, ref);
      return new QueueResult.Completed(lease.key());
    }
  }

  private void deletePayload(Connection c, String ref) throws SQLException {
    if (ref == null) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(sql.deletePayload)) {
      ps.setString(1, ref);
      ps.executeUpdate();
    }
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
      return settled(
          lease.queue(), started(), core.database().writeOrJoin(c -> completeIn(c, lease, work)));
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
        return settledAll(
            copy.stream().map(Completion::lease).toList(),
            started(),
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

  /**
   * Acknowledges {@code leases} inside an open transaction, each as {@link #ackIn} does: on
   * PostgreSQL in one statement for all of them ({@link
   * dev.onceonly.internal.dialect.SqlDialect#ackMany}), so a batch costs one round trip instead of
   * one per lease. Every acknowledged message's row stays locked until the transaction ends, so the
   * works that follow run with their acknowledgements held, as {@link #completeIn} says.
   */
  private List<QueueResult> ackEach(Connection c, List<Lease> leases) throws SQLException {
    if (leases.size() < 2 || sql.ackMany.isEmpty()) {
      List<QueueResult> out = new ArrayList<>(leases.size());
      for (Lease l : leases) {
        out.add(ackIn(c, l));
      }
      return out;
    }
    long[] ids = new long[leases.size()];
    long[] fences = new long[leases.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = leases.get(i).messageId();
      fences[i] = leases.get(i).fence();
    }
    Set<List<Long>> deleted = new HashSet<>();
    List<String> refs = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.ackMany.get())) {
      ps.setArray(1, c.createArrayOf("bigint", boxed(ids)));
      ps.setArray(2, c.createArrayOf("bigint", boxed(fences)));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          deleted.add(List.of(rs.getLong(1), rs.getLong(2)));
          refs.add(rs.getString(3));
        }
      }
    }
    for (String ref : refs) {
      deletePayload(c, ref);
    }
    List<QueueResult> out = new ArrayList<>(leases.size());
    for (Lease l : leases) {
      // A lease listed twice is acknowledged once, as two statements would: the second finds none.
      out.add(
          deleted.remove(List.of(l.messageId(), l.fence()))
              ? new QueueResult.Completed(l.key())
              : lost(l));
    }
    return out;
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
  public List<QueueResult> ackAll(List<Lease> leases) {
    List<Lease> copy = List.copyOf(leases);
    return settledAll(copy, started(), core.database().writeOrJoin(c -> ackEach(c, copy)));
  }

  @Override
  public QueueResult ackAndSend(Lease lease, List<Message> next) {
    Objects.requireNonNull(lease, "lease");
    List<Prepared> prepared = next.stream().map(this::prepare).toList();
    long started = started();
    QueueResult result =
        core.database()
            .writeOrJoin(
                c -> {
                  QueueResult acked = ackIn(c, lease);
                  if (!(acked instanceof QueueResult.Completed)) {
                    return acked;
                  }
                  List<SendResult> refused = new ArrayList<>();
                  for (Prepared p : prepared) {
                    SendResult sent = insert(c, p, null);
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
              sent(new SendResult(SendResult.Status.SENT, p.message().queue(), p.message().key())));
    }
    return settled(lease.queue(), started, result);
  }

  @Override
  public boolean withdraw(String queue, String key) {
    check("queue", queue, QUEUE);
    check("key", key, KEY);
    return core.database().writeOrJoin(c -> withdrawIn(c, queue, key));
  }

  @Override
  public boolean withdraw(Connection transaction, String queue, String key) {
    Objects.requireNonNull(transaction, "transaction");
    check("queue", queue, QUEUE);
    check("key", key, KEY);
    return core.database().join(transaction, c -> withdrawIn(c, queue, key));
  }

  private boolean withdrawIn(Connection c, String queue, String key) throws SQLException {
    String ref;
    try (PreparedStatement ps = c.prepareStatement(sql.withdraw)) {
      ps.setString(1, queue);
      ps.setString(2, key);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return false;
        }
        ref = rs.getString(1);
      }
    }
    deletePayload(c, ref);
    return true;
  }

  @Override
  public QueueResult reschedule(Lease lease, Instant at) {
    Objects.requireNonNull(lease, "lease");
    Bounds.instant(at, "at");
    return settled(
        lease.queue(),
        started(),
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
    Objects.requireNonNull(lease, "lease");
    Bounds.nonNegative(requiredWait, "requiredWait");
    String bounded = bound(error);
    return settled(
        lease.queue(),
        started(),
        core.database().write(c -> fail(c, lease, bounded, requiredWait)));
  }

  private QueueResult fail(Connection c, Lease lease, String error, Duration wait)
      throws SQLException {
    int attempts;
    Instant first;
    try (PreparedStatement ps = c.prepareStatement(sql.attempts)) {
      ps.setLong(1, lease.messageId());
      ps.setLong(2, lease.fence());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return lost(lease);
        }
        attempts = rs.getInt(1);
        first = times.instant(rs, 2);
      }
    }
    Instant now = core.clock().instant();
    Optional<Instant> next =
        policy.nextAttempt(attempts, first, now, wait, ThreadLocalRandom.current());
    if (next.isEmpty()) {
      moveToDeadLetters(c, lease, attempts, error, now);
      return new QueueResult.DeadLettered(lease.key(), attempts, error);
    }
    try (PreparedStatement ps = c.prepareStatement(sql.retry)) {
      times.set(ps, 1, next.get().toEpochMilli());
      ps.setString(2, error);
      ps.setLong(3, lease.messageId());
      ps.setLong(4, lease.fence());
      ps.executeUpdate();
    }
    return new QueueResult.Retrying(lease.key(), next.get(), attempts);
  }

  @Override
  public QueueResult deadLetter(Lease lease, String error) {
    Objects.requireNonNull(lease, "lease");
    String bounded = bound(error);
    return settled(
        lease.queue(),
        started(),
        core.database()
            .write(
                c -> {
                  int attempts = attemptsOf(c, lease);
                  if (attempts < 0) {
                    return lost(lease);
                  }
                  moveToDeadLetters(c, lease, attempts, bounded, core.clock().instant());
                  return new QueueResult.DeadLettered(lease.key(), attempts, bounded);
                }));
  }

  private int attemptsOf(Connection c, Lease lease) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.attempts)) {
      ps.setLong(1, lease.messageId());
      ps.setLong(2, lease.fence());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getInt(1) : -1;
      }
    }
  }

  private void moveToDeadLetters(Connection c, Lease lease, int attempts, String error, Instant now)
      throws SQLException {
    update(c, sql.dropReplacedDeadPayload, null, lease); // an older dead letter's body goes
    try (PreparedStatement ps = c.prepareStatement(sql.deadLetter)) {
      ps.setInt(1, attempts);
      ps.setString(2, bound(error));
      times.set(ps, 3, now.toEpochMilli());
      ps.setLong(4, lease.messageId());
      ps.setLong(5, lease.fence());
      ps.executeUpdate();
    }
    update(c, sql.deleteMessage, null, lease);
  }

  private int update(Connection c, String statement, Long first, Lease lease) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      int i = 1;
      if (first != null) {
        times.set(ps, i++, first);
      }
      ps.setLong(i++, lease.messageId());
      ps.setLong(i, lease.fence());
      return ps.executeUpdate();
    }
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
    return core.database()
        .read(
            c -> {
              try (PreparedStatement ps = c.prepareStatement(sql.listDeadLetters)) {
                ps.setString(1, queue);
                ps.setInt(2, limit);
                List<DeadLetter> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    out.add(
                        new DeadLetter(
                            queue,
                            rs.getString(1),
                            core.readTree(rs.getString(2)),
                            rs.getInt(3),
                            rs.getString(4),
                            times.instant(rs, 5)));
                  }
                }
                return out;
              }
            });
  }

  @Override
  public Optional<DeadLetter> findDeadLetter(String queue, String key) {
    check("queue", queue, QUEUE);
    check("key", key, KEY);
    return core.database()
        .read(
            c -> {
              try (PreparedStatement ps = c.prepareStatement(sql.findDeadLetter)) {
                ps.setString(1, queue);
                ps.setString(2, key);
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next()
                      ? Optional.of(deadLetter(queue, rs))
                      : Optional.<DeadLetter>empty();
                }
              }
            });
  }

  private DeadLetter deadLetter(String queue, ResultSet rs) throws SQLException {
    return new DeadLetter(
        queue,
        rs.getString(1),
        core.readTree(rs.getString(2)),
        rs.getInt(3),
        rs.getString(4),
        times.instant(rs, 5));
  }

  @Override
  public boolean requeue(String queue, String key) {
    check("queue", queue, QUEUE);
    check("key", key, KEY);
    boolean moved =
        core.database()
            .write(
                c -> {
                  try (PreparedStatement ps = c.prepareStatement(sql.requeue)) {
                    times.set(ps, 1, core.clock().millis());
                    ps.setString(2, queue);
                    ps.setString(3, key);
                    if (ps.executeUpdate() != 1) {
                      return false;
                    }
                  }
                  try (PreparedStatement ps = c.prepareStatement(sql.deleteDeadLetter)) {
                    ps.setString(1, queue);
                    ps.setString(2, key);
                    ps.executeUpdate();
                  }
                  return true;
                });
    if (moved) {
      signals.fire(queue);
    }
    return moved;
  }

  @Override
  public long depth(String queue) {
    check("queue", queue, QUEUE);
    return core.database().read(c -> longQuery(c, sql.depth, queue));
  }

  @Override
  public Optional<Instant> nextDue(String queue) {
    check("queue", queue, QUEUE);
    return core.database()
        .read(
            c -> {
              try (PreparedStatement ps = c.prepareStatement(sql.nextDue)) {
                ps.setString(1, queue);
                try (ResultSet rs = ps.executeQuery()) {
                  rs.next();
                  return Optional.ofNullable(times.getNullable(rs, 1)).map(Instant::ofEpochMilli);
                }
              }
            });
  }

  private static long longQuery(Connection c, String statement, String arg) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      ps.setString(1, arg);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Override
  public Events events() {
    return core.events();
  }

  @Override
  public AutoCloseable onSend(Consumer<String> listener) {
    return signals.add(listener);
  }

  private static String bound(String error) {
    String e = SqlRejectionStore.storable(error == null ? "(no error text)" : error);
    return e.length() <= MAX_ERROR_CHARS ? e : e.substring(0, MAX_ERROR_CHARS - 1) + "\u2026";
  }
}
