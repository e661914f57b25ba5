package dev.onceonly.maintenance;

import dev.onceonly.IntentKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The rows of a store counted per table and state, from {@link Maintenance#status()}. Immutable;
 * the maps iterate in name order.
 *
 * @param database what the store runs on, for people (never a password)
 * @param schemaVersion the schema version found in the database
 * @param at the instant the counts were read at, from the store's clock
 * @param intents intents registered
 * @param pendingIntents intents without a receipt yet
 * @param receiptsLive receipts whose result is still returned
 * @param receiptsExpired receipts whose result is past its expiry, not yet purged to a tombstone
 * @param tombstones receipts kept as a fingerprint only
 * @param messages per queue, its messages due, leased and delayed
 * @param deadLetters per queue, its dead letters
 * @param rejections rejected deliveries kept
 * @param claims per state name (for example {@code IN_PROGRESS}, {@code UNKNOWN}), the external
 *     effect claims in it
 * @param oldestPending the intent without a receipt registered longest ago, if any
 * @param oldestDueAge how long the message due longest has waited, if any is due
 */
public record StoreStatus(
    String database,
    int schemaVersion,
    Instant at,
    long intents,
    long pendingIntents,
    long receiptsLive,
    long receiptsExpired,
    long tombstones,
    Map<String, QueueCounts> messages,
    Map<String, Long> deadLetters,
    long rejections,
    Map<String, Long> claims,
    Optional<PendingIntent> oldestPending,
    Optional<Duration> oldestDueAge) {

  /**
   * Checks the fields and copies the maps.
   *
   * @param database what the store runs on, for people (never a password)
   * @param schemaVersion the schema version found in the database
   * @param at the instant the counts were read at, from the store's clock
   * @param intents intents registered
   * @param pendingIntents intents without a receipt yet
   * @param receiptsLive receipts whose result is still returned
   * @param receiptsExpired receipts whose result is past its expiry, not yet purged to a tombstone
   * @param tombstones receipts kept as a fingerprint only
   * @param messages per queue, its messages due, leased and delayed
   * @param deadLetters per queue, its dead letters
   * @param rejections rejected deliveries kept
   * @param claims per state name (for example {@code IN_PROGRESS}, {@code UNKNOWN}), the external
   *     effect claims in it
   * @param oldestPending the intent without a receipt registered longest ago, if any
   * @param oldestDueAge how long the message due longest has waited, if any is due
   */
  public StoreStatus {
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(oldestPending, "oldestPending");
    Objects.requireNonNull(oldestDueAge, "oldestDueAge");
    messages = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(messages));
    deadLetters = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(deadLetters));
    claims = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(claims));
  }

  /** {@return the dead letters over every queue} */
  public long deadLetterTotal() {
    return deadLetters.values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * The messages of one queue by state.
   *
   * @param due deliverable now
   * @param leased held by a receiver until its lease ends
   * @param delayed waiting for a later delivery time (sent with a delay, or retrying)
   */
  public record QueueCounts(long due, long leased, long delayed) {
    /** {@return the messages not deliverable now: leased or delayed} */
    public long later() {
      return leased + delayed;
    }
  }

  /**
   * An intent without a receipt.
   *
   * @param key its key
   * @param registeredAt when it was registered
   * @param age how long ago that was, at the status's clock
   */
  public record PendingIntent(IntentKey key, Instant registeredAt, Duration age) {
    /**
     * Checks the fields.
     *
     * @param key its key
     * @param registeredAt when it was registered
     * @param age how long ago that was, at the status's clock
     */
    public PendingIntent {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(registeredAt, "registeredAt");
      Objects.requireNonNull(age, "age");
    }
  }
}
