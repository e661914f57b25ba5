package dev.onceonly.internal.queue;

import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.internal.db.StatementCache;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.RateLimit;
import java.lang.invoke.MethodHandles;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rate limits of the job queue's claims: a sliding window per queue and per partition, counted
 * over every instance from the rows of {@code <prefix>rate_claims}.
 *
 * <p>A claim of a rate-limited queue runs, in its own transaction and after the queue's lock (the
 * one concurrency limits take, see {@link QueueClaims#claim}), one count of the window's rows
 * before it leases and one batched insert of a row per leased message after it: its room is the
 * limit less the rows younger than the window, so two instances never both count the same room, and
 * no lock or counter outlives the claim. Rows older than the longest window of the queue are
 * deleted by a claim at most once a window per instance. A claim that finds no room leases nothing
 * and charges no attempt: the messages stay due, and how long until the window has room is kept for
 * this instance's workers ({@link #waitFor}).
 */
final class QueueRateLimits {
  private final InstantColumns times;
  private final Events events;
  private final RateLimits declared;
  private final String windowUse;
  private final String partitionUse;
  private final String charge;
  private final String prune;
  private final String dueInFull;

  /** Per queue, the wait the last committed claim of this instance found; absent for none. */
  private final Map<String, Long> waits = new ConcurrentHashMap<>();

  /** Per queue, when this instance last deleted the rows older than its windows. */
  private final Map<String, Long> pruned = new ConcurrentHashMap<>();

  QueueRateLimits(StoreContext core, String prefix, RateLimits declared) {
    this.times = core.times();
    this.events = core.events();
    this.declared = declared;
    String r = prefix + "rate_claims";
    windowUse =
        "SELECT COUNT(*), MIN(claimed_at) FROM " + r + " WHERE queue = ? AND claimed_at > ?";
    partitionUse =
        "SELECT partition_key, COUNT(*), MIN(claimed_at) FROM "
            + r
            + " WHERE queue = ? AND claimed_at > ? AND partition_key IS NOT NULL"
            + " GROUP BY partition_key";
    charge = "INSERT INTO " + r + " (queue, partition_key, claimed_at) VALUES (?, ?, ?)";
    prune = "DELETE FROM " + r + " WHERE queue = ? AND claimed_at <= ?";
    dueInFull =
        "SELECT COUNT(*) FROM "
            + prefix
            + "messages x WHERE x.queue = ? AND x.deliver_at <= ? AND x.partition_key IN ("
            + fullPartitions(r)
            + ")";
    StatementCache.registerFields(this, MethodHandles.lookup());
  }

  /**
   * The partitions whose window is full, as a subquery. Parameters: the queue, the window's start
   * (exclusive), the limit.
   */
  static String fullPartitions(String rateClaims) {
    return "SELECT r.partition_key FROM "
        + rateClaims
        + " r WHERE r.queue = ? AND r.claimed_at > ? AND r.partition_key IS NOT NULL"
        + " GROUP BY r.partition_key HAVING COUNT(*) >= ?";
  }

  /** {@return whether {@code queue} has a rate limit, its own or per partition} */
  boolean limited(String queue) {
    return declared.limited(queue);
  }

  /** {@return the limit of each partition of {@code queue}, or null} */
  RateLimit perPartition(String queue) {
    return declared.perPartition().get(queue);
  }

  /** {@return the limit of the whole {@code queue}, or null} */
  RateLimit perQueue(String queue) {
    return declared.perQueue().get(queue);
  }

  /**
   * How long this instance's last committed claim of {@code queue} found that the rate limit leaves
   * no room: the queue's window full, or every due message in a partition whose window is full;
   * zero otherwise.
   */
  Duration waitFor(String queue) {
    Long millis = waits.get(queue);
    return millis == null ? Duration.ZERO : Duration.ofMillis(millis);
  }

  /** What one claim found and charged, published after its commit. A claim run again resets it. */
  static final class Use {
    private String scope;
    private int used;
    private int limit;
    private long waitMillis;
    private boolean queueFull;
    private int partitionUsed = -1;
    private int partitionLimit;

    /** The partition of each message the claim read, by id; a partitioned claim fills it. */
    final Map<Long, String> partitions = new HashMap<>();

    void reset() {
      scope = null;
      used = 0;
      limit = 0;
      waitMillis = 0;
      queueFull = false;
      partitionUsed = -1;
      partitionLimit = 0;
      partitions.clear();
    }
  }

  /**
   * Deletes the rows older than the queue's windows, at most once a window, then returns the room
   * the queue's own limit leaves at {@code now} (every claim of every instance in the last window
   * counted), or {@link Integer#MAX_VALUE} where the queue has none. With no room, the wait until
   * the oldest claim of the window leaves it is kept in {@code use}.
   */
  int room(Connection c, String queue, long now, Use use) throws SQLException {
    pruneIfDue(c, queue, now);
    RateLimit limit = perQueue(queue);
    if (limit == null) {
      return Integer.MAX_VALUE;
    }
    long since = now - limit.window().toMillis();
    try (PreparedStatement ps = c.prepareStatement(windowUse)) {
      ps.setString(1, queue);
      times.set(ps, 2, since);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        int used = rs.getInt(1);
        Long oldest = times.getNullable(rs, 2);
        use.scope = "queue";
        use.used = used;
        use.limit = limit.claims();
        if (used >= limit.claims() && oldest != null) {
          use.queueFull = true;
          use.waitMillis = Math.max(1, oldest + limit.window().toMillis() - now);
        }
        return limit.claims() - used;
      }
    }
  }

  private void pruneIfDue(Connection c, String queue, long now) throws SQLException {
    long longest = longestWindow(queue);
    Long last = pruned.get(queue);
    if (last != null && now - last < longest) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(prune)) {
      ps.setString(1, queue);
      times.set(ps, 2, now - longest);
      ps.executeUpdate();
    }
    pruned.put(queue, now); // a rolled-back prune only deletes again a window later
  }

  private long longestWindow(String queue) {
    long longest = 0;
    for (RateLimit l : new RateLimit[] {perQueue(queue), perPartition(queue)}) {
      if (l != null) {
        longest = Math.max(longest, l.window().toMillis());
      }
    }
    return longest;
  }

  /**
   * The claims of each partition of {@code queue} in its window, as of {@code now}; the partitions
   * whose window is full also shorten {@code use}'s wait to when the first of them has room.
   */
  Map<String, Integer> partitionUse(Connection c, String queue, long now, Use use)
      throws SQLException {
    RateLimit limit = perPartition(queue);
    Map<String, Integer> used = new HashMap<>();
    long window = limit.window().toMillis();
    long firstRoom = Long.MAX_VALUE;
    int fullest = 0;
    try (PreparedStatement ps = c.prepareStatement(partitionUse)) {
      ps.setString(1, queue);
      times.set(ps, 2, now - window);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          int n = rs.getInt(2);
          used.put(rs.getString(1), n);
          fullest = Math.max(fullest, n);
          if (n >= limit.claims()) {
            firstRoom = Math.min(firstRoom, times.get(rs, 3) + window);
          }
        }
      }
    }
    use.partitionLimit = limit.claims();
    use.partitionUsed = fullest;
    use.waitMillis = firstRoom == Long.MAX_VALUE ? 0 : Math.max(1, firstRoom - now);
    return used;
  }

  /**
   * After a partitioned claim that took nothing: keeps {@code use}'s wait only if a due message
   * waits in a partition whose window is full (else nothing is due, and the worker's idle backoff
   * and send wake-ups apply).
   */
  void keepWaitIfDueInFull(Connection c, String queue, long now, Use use) throws SQLException {
    if (use.waitMillis == 0) {
      return;
    }
    RateLimit limit = perPartition(queue);
    try (PreparedStatement ps = c.prepareStatement(dueInFull)) {
      ps.setString(1, queue);
      times.set(ps, 2, now);
      ps.setString(3, queue);
      times.set(ps, 4, now - limit.window().toMillis());
      ps.setInt(5, limit.claims());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getInt(1) == 0) {
          use.waitMillis = 0;
        }
      }
    }
  }

  /** Counts one message of {@code partition} a partitioned claim took, for the event. */
  void counted(Use use, int partitionClaims) {
    use.partitionUsed = Math.max(use.partitionUsed, partitionClaims);
  }

  /**
   * Records the messages a claim leased, one row each with the claim's time and partition (taken
   * from {@code use}; none for a message of no partition on a queue limited only per partition).
   */
  void charge(Connection c, String queue, List<Long> ids, long now, Use use) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    boolean whole = perQueue(queue) != null;
    use.used += ids.size();
    use.waitMillis = 0; // it took something: the worker claims again at once
    int rows = 0;
    try (PreparedStatement ps = c.prepareStatement(charge)) {
      for (Long id : ids) {
        String partition = use.partitions.get(id);
        if (partition == null && !whole) {
          continue;
        }
        ps.setString(1, queue);
        ps.setString(2, partition);
        times.set(ps, 3, now);
        ps.addBatch();
        rows++;
      }
      if (rows > 0) {
        ps.executeBatch();
      }
    }
  }

  /** After the claim committed: keeps its wait for the workers and publishes its use. */
  void committed(String queue, Use use) {
    if (use.waitMillis > 0) {
      waits.put(queue, use.waitMillis);
    } else {
      waits.remove(queue);
    }
    if (!events.enabled()) {
      return;
    }
    Duration wait = Duration.ofMillis(use.waitMillis);
    if (use.scope != null) {
      events.publish(
          new OnceOnlyEvent.RateLimitUsed(
              queue, "queue", use.used, use.limit, use.queueFull ? wait : Duration.ZERO));
    }
    if (use.partitionUsed >= 0) {
      events.publish(
          new OnceOnlyEvent.RateLimitUsed(
              queue,
              "partition",
              use.partitionUsed,
              use.partitionLimit,
              use.queueFull ? Duration.ZERO : wait));
    }
  }
}
