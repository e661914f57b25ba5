package dev.onceonly.internal.queue;

import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.dialect.SqlDialect;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.QueueLimits;
import dev.onceonly.queue.RateLimit;
import dev.onceonly.queue.RetryPolicy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The claims of the job queue: priorities and the no-starvation rule, concurrency limits per queue
 * and per partition, rate limits (counted by {@link QueueRateLimits}), and the messages a claim
 * finds with no attempt left.
 */
final class QueueClaims {
  /** The most messages one claim takes. */
  static final int MAX_RECEIVE = 1000;

  /** The most windows one claim of a queue with a limit per partition reads. */
  private static final int PARTITION_WINDOWS = 8;

  /** The advisory lock space of concurrency limits (an arbitrary constant: "OnceLimt" folded). */
  private static final int LIMIT_LOCK_SPACE = 0x4f6e4c6d;

  /** How many claims that took something the oldest-first claim of a queue comes after. */
  private static final int PRIORITY_CLAIMS = 3;

  private final StoreContext core;
  private final QueueStatements sql;
  private final InstantColumns times;
  private final SqlDialect dialect;
  private final String messages;
  private final RetryPolicy policy;
  private final QueueDeadLetters deadLetters;
  private final Map<String, AtomicInteger> sincePriorityOldest;
  private final Map<String, Integer> limits;
  private final Map<String, Integer> partitionLimits;
  private final QueueRateLimits rates;

  /**
   * Creates the claims of one view of the queue.
   *
   * @param sincePriorityOldest per queue name, the claims that took something since the last one
   *     that took the oldest; shared by every view of the instance's queue
   */
  QueueClaims(
      StoreContext core,
      QueueStatements sql,
      RetryPolicy policy,
      QueueDeadLetters deadLetters,
      Map<String, AtomicInteger> sincePriorityOldest,
      Map<String, Integer> limits,
      Map<String, Integer> partitionLimits,
      QueueRateLimits rates) {
    this.core = core;
    this.sql = sql;
    this.times = core.times();
    this.dialect = core.database().sql();
    this.messages = core.prefix() + "messages";
    this.policy = policy;
    this.deadLetters = deadLetters;
    this.sincePriorityOldest = sincePriorityOldest;
    this.limits = limits;
    this.partitionLimits = partitionLimits;
    this.rates = rates;
  }

  /** {@return a new map of claim counters, for the first view of an instance's queue} */
  static Map<String, AtomicInteger> counters() {
    return new ConcurrentHashMap<>();
  }

  /** {@return whether {@code queue} has a concurrency limit, per queue or per partition} */
  boolean limited(String queue) {
    return limits.containsKey(queue) || partitionLimits.containsKey(queue);
  }

  /** {@return the limits declared for {@code queue}} */
  QueueLimits limits(String queue) {
    Integer all = limits.get(queue);
    Integer each = partitionLimits.get(queue);
    return new QueueLimits(
        all == null ? OptionalInt.empty() : OptionalInt.of(all),
        each == null ? OptionalInt.empty() : OptionalInt.of(each),
        java.util.Optional.ofNullable(rates.perQueue(queue)),
        java.util.Optional.ofNullable(rates.perPartition(queue)));
  }

  /**
   * Whether the next claim of {@code queue} takes the oldest due messages whatever their priority:
   * after every {@value #PRIORITY_CLAIMS} claims of the queue that took something. The count is per
   * queue name, so claims of other queues and polls that found nothing do not move it, and a
   * low-priority message waits at most for the claims the bound in docs/queue.md allows.
   */
  boolean oldestFirst(String queue) {
    return counter(queue).get() >= PRIORITY_CLAIMS;
  }

  /** Counts a committed claim of {@code queue} that took something. */
  void claimed(String queue, boolean oldestFirst) {
    AtomicInteger counter = counter(queue);
    if (oldestFirst) {
      counter.set(0);
    } else {
      counter.incrementAndGet();
    }
  }

  private AtomicInteger counter(String queue) {
    return sincePriorityOldest.computeIfAbsent(queue, q -> new AtomicInteger());
  }

  /**
   * Claims up to {@code max} due messages of {@code queue} in an open transaction, after firing its
   * due schedules; the messages with no attempt left are dead-lettered instead, their attempts
   * added to {@code deadLettered}. On a rate-limited queue it takes at most the room of the window
   * and records what it took in {@code use}.
   */
  List<Delivery> claim(
      Connection c,
      String queue,
      int max,
      Duration lease,
      boolean oldestFirst,
      SqlSchedules schedules,
      List<Integer> deadLettered,
      List<OnceOnlyEvent.ScheduleFired> fired,
      QueueRateLimits.Use use)
      throws SQLException {
    deadLettered.clear(); // a transaction run again starts over
    fired.clear();
    use.reset();
    Instant now = core.clock().instant();
    schedules.fireIfDue(c, queue, now, fired);
    Integer limit = limits.get(queue);
    Integer perPartition = partitionLimits.get(queue);
    boolean rated = rates.limited(queue);
    if (limit != null || perPartition != null || rated) {
      core.database().lockKey(c, core.prefix(), LIMIT_LOCK_SPACE, queue);
    }
    if (limit != null) {
      max = Math.min(max, room(c, queue, limit, now));
    }
    if (rated && max > 0) {
      max = Math.min(max, rates.room(c, queue, now.toEpochMilli(), use));
    }
    if (max <= 0) {
      return List.of(); // nothing leased, no attempt charged: the messages stay due
    }
    Instant until = now.plus(lease);
    List<Delivery> out = new ArrayList<>();
    List<Object[]> exhausted = new ArrayList<>();
    List<Ranked> ranked = new ArrayList<>();
    if (perPartition != null || rates.perPartition(queue) != null) {
      int each = perPartition == null ? Integer.MAX_VALUE : perPartition;
      claimPartitioned(c, queue, now, max, until, each, oldestFirst, ranked, exhausted, use);
    } else {
      try (PreparedStatement ps = c.prepareStatement(oldestFirst ? sql.claimOldest : sql.claim)) {
        long at = now.toEpochMilli();
        dialect.bindClaim(ps, queue, at, max, until.toEpochMilli());
        try (ResultSet rs = dialect.claimed(c, ps, messages, at, until.toEpochMilli())) {
          readClaimed(rs, queue, until, oldestFirst, ranked, exhausted);
        }
      }
    }
    for (Object[] e : exhausted) {
      String last = (String) e[2];
      int delivered = ((int) e[1]) - 1; // this claim was not a delivery
      deadLetters.move(
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
    if (rated) {
      List<Long> ids = out.stream().map(d -> d.lease().messageId()).toList();
      rates.charge(c, queue, ids, now.toEpochMilli(), use);
      if (ids.isEmpty() && rates.perPartition(queue) != null) {
        rates.keepWaitIfDueInFull(c, queue, now.toEpochMilli(), use);
      }
    }
    return out;
  }

  private record Ranked(int priority, Delivery delivery) {}

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

  /**
   * Claims up to {@code max} due messages of a queue with a limit per partition, in windows, after
   * counting the live leases of each partition: each window reads the next due messages in claim
   * order that are not in a full partition, takes those whose partition still has room (counting
   * what this claim took), and leases them; leased, they are no longer due, and a partition that
   * filled is left out of the next window. It stops when a window came back short (no more due
   * messages outside full partitions), or took nothing, or after {@value #PARTITION_WINDOWS}
   * windows. The claims of the queue are serialized (see {@link #claim}), so what a window read is
   * still true when it leases. With a rate limit per partition, a partition whose window is full is
   * left out the same way, and each taken message counts in its partition's window.
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
      List<Object[]> exhausted,
      QueueRateLimits.Use use)
      throws SQLException {
    int remaining = max;
    Map<String, Integer> leases = new HashMap<>();
    RateLimit rate = rates.perPartition(queue);
    Map<String, Integer> rated =
        rate == null ? Map.of() : rates.partitionUse(c, queue, now.toEpochMilli(), use);
    int ratedMax = rate == null ? Integer.MAX_VALUE : rate.claims();
    if (perPartition < Integer.MAX_VALUE) {
      leasesByPartition(c, queue, now, leases);
    }
    for (int window = 0; window < PARTITION_WINDOWS && remaining > 0; window++) {
      int size = Math.min(MAX_RECEIVE, remaining * 4 + 16);
      List<Long> take = new ArrayList<>();
      int read = 0;
      try (PreparedStatement ps = c.prepareStatement(windowSql(rate != null, oldestFirst))) {
        long at = now.toEpochMilli();
        ps.setString(1, queue);
        times.set(ps, 2, at);
        ps.setString(3, queue);
        times.set(ps, 4, at);
        ps.setInt(5, perPartition);
        int next = 6;
        if (rate != null) {
          ps.setString(next++, queue);
          times.set(ps, next++, at - rate.window().toMillis());
          ps.setInt(next++, rate.claims());
        }
        ps.setInt(next, size);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next() && take.size() < remaining) {
            read++;
            String partition = rs.getString(2);
            if (partition == null) {
              take.add(rs.getLong(1));
            } else if (leases.getOrDefault(partition, 0) < perPartition
                && rated.getOrDefault(partition, 0) < ratedMax) {
              leases.merge(partition, 1, Integer::sum);
              if (rate != null) {
                rates.counted(use, rated.merge(partition, 1, Integer::sum));
              }
              use.partitions.put(rs.getLong(1), partition);
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
          dialect.bindClaimIds(ps, QueueStatements.CLAIM_IDS, chunk, at, until.toEpochMilli());
          try (ResultSet rs = dialect.claimed(c, ps, messages, at, until.toEpochMilli())) {
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

  private void leasesByPartition(Connection c, String queue, Instant now, Map<String, Integer> out)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.partitionLeases)) {
      ps.setString(1, queue);
      times.set(ps, 2, now.toEpochMilli());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getInt(2));
        }
      }
    }
  }

  private String windowSql(boolean rated, boolean oldestFirst) {
    if (rated) {
      return oldestFirst ? sql.partitionWindowRatedOldest : sql.partitionWindowRated;
    }
    return oldestFirst ? sql.partitionWindowOldest : sql.partitionWindow;
  }

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
}
