package dev.onceonly.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What is waiting or stuck, from {@link Maintenance#backlog()}: the part of {@link StoreStatus}
 * that monitoring watches (gauges, a health check), read without counting the receipts, intents or
 * rejections a store keeps as its history. Its cost grows with the work outstanding (messages, dead
 * letters, claims, intents), not with the receipts already written. Immutable; the maps are sorted
 * by key.
 *
 * @param at the instant the counts were read at, from the store's clock
 * @param pendingIntents intents without a receipt yet
 * @param oldestPending the intent without a receipt registered longest ago, if any
 * @param messages per queue, its messages due, leased and delayed
 * @param oldestDueAge how long the message due longest has waited, if any is due
 * @param deadLetters per queue, its dead letters
 * @param claims per state name (for example {@code IN_PROGRESS}, {@code UNKNOWN}), the external
 *     effect claims in it
 */
public record Backlog(
    Instant at,
    long pendingIntents,
    Optional<StoreStatus.PendingIntent> oldestPending,
    Map<String, StoreStatus.QueueCounts> messages,
    Optional<Duration> oldestDueAge,
    Map<String, Long> deadLetters,
    Map<String, Long> claims) {

  /**
   * Checks the fields and copies the maps.
   *
   * @param at the instant the counts were read at, from the store's clock
   * @param pendingIntents intents without a receipt yet
   * @param oldestPending the intent without a receipt registered longest ago, if any
   * @param messages per queue, its messages due, leased and delayed
   * @param oldestDueAge how long the message due longest has waited, if any is due
   * @param deadLetters per queue, its dead letters
   * @param claims per state name, the external effect claims in it
   */
  public Backlog {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(oldestPending, "oldestPending");
    Objects.requireNonNull(oldestDueAge, "oldestDueAge");
    messages = Collections.unmodifiableMap(new TreeMap<>(messages));
    deadLetters = Collections.unmodifiableMap(new TreeMap<>(deadLetters));
    claims = Collections.unmodifiableMap(new TreeMap<>(claims));
  }

  /**
   * {@return the backlog part of a full status, the same figures it counted}
   *
   * @param status a status read by {@link Maintenance#status()}
   */
  public static Backlog of(StoreStatus status) {
    return new Backlog(
        status.at(),
        status.pendingIntents(),
        status.oldestPending(),
        status.messages(),
        status.oldestDueAge(),
        status.deadLetters(),
        status.claims());
  }

  /** {@return the dead letters over every queue} */
  public long deadLetterTotal() {
    return deadLetters.values().stream().mapToLong(Long::longValue).sum();
  }
}
