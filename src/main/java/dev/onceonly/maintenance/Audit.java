package dev.onceonly.maintenance;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The rules and the report of {@link Maintenance#audit}: checks on a live store that what the
 * application did matches what OnceOnly recorded, for a CI gate or an operator ({@code onceonly
 * verify}).
 */
public final class Audit {
  /** The most findings a report lists; beyond them it only counts. */
  public static final int MAX_LISTED = 1_000;

  private Audit() {}

  /** What an audit finds. */
  public enum Kind {
    /** The application's effect happened more than once for one key. */
    DUPLICATE_EFFECT,
    /** The effect happened for a key that has no receipt of the operation. */
    EFFECT_WITHOUT_RECEIPT,
    /** A live receipt of the operation whose effect is not in the application's tables. */
    RECEIPT_WITHOUT_EFFECT,
    /** A registered intent without a receipt, older than the bound: forgotten, or stuck. */
    FORGOTTEN_INTENT,
    /**
     * A message or an external-effect claim whose lease ran out longer ago than the grace and that
     * no one took over: a holder died and nothing has picked the work up since.
     */
    STALE_LEASE
  }

  /**
   * What to check.
   *
   * @param operation the operation whose receipts the effects belong to, such as {@code charge};
   *     null to skip the effect checks
   * @param effectsQuery the application's SQL that counts its effects per key, run on the store's
   *     database: two columns {@code (key, count)} matched against the receipts' keys, or three
   *     {@code (scope, key, count)}; null to skip the effect checks
   * @param pendingBound an intent without a receipt older than this is {@link
   *     Kind#FORGOTTEN_INTENT}; positive
   * @param leaseGrace a lease that ran out longer ago than this is {@link Kind#STALE_LEASE}; zero
   *     or positive
   */
  public record Rules(
      String operation, String effectsQuery, Duration pendingBound, Duration leaseGrace) {
    /**
     * Checks the fields.
     *
     * @param operation the operation whose receipts the effects belong to, such as {@code charge};
     *     null to skip the effect checks
     * @param effectsQuery the application's SQL that counts its effects per key, run on the store's
     *     database: two columns {@code (key, count)} matched against the receipts' keys, or three
     *     {@code (scope, key, count)}; null to skip the effect checks
     * @param pendingBound an intent without a receipt older than this is {@link
     *     Kind#FORGOTTEN_INTENT}; positive
     * @param leaseGrace a lease that ran out longer ago than this is {@link Kind#STALE_LEASE}; zero
     *     or positive
     */
    public Rules {
      if ((operation == null) != (effectsQuery == null)) {
        throw new IllegalArgumentException(
            "operation and effectsQuery go together: give both or neither");
      }
      if (effectsQuery != null && effectsQuery.isBlank()) {
        throw new IllegalArgumentException("effectsQuery must not be blank");
      }
      Objects.requireNonNull(pendingBound, "pendingBound");
      Objects.requireNonNull(leaseGrace, "leaseGrace");
      if (pendingBound.isNegative() || pendingBound.isZero()) {
        throw new IllegalArgumentException("pendingBound must be > 0: " + pendingBound);
      }
      if (leaseGrace.isNegative()) {
        throw new IllegalArgumentException("leaseGrace must be >= 0: " + leaseGrace);
      }
    }

    /**
     * Returns rules for the store's own checks only (forgotten intents, stale leases).
     *
     * @param pendingBound see {@link Rules}
     * @param leaseGrace see {@link Rules}
     * @return the rules
     */
    public static Rules storeOnly(Duration pendingBound, Duration leaseGrace) {
      return new Rules(null, null, pendingBound, leaseGrace);
    }

    /** {@return whether the effect checks run} */
    public boolean checksEffects() {
      return effectsQuery != null;
    }
  }

  /**
   * One finding.
   *
   * @param kind what was found
   * @param where the queue or scope, when the finding has one, else empty
   * @param key the key
   * @param detail for people: the counts or the ages
   */
  public record Finding(Kind kind, String where, String key, String detail) {
    /**
     * Checks the fields.
     *
     * @param kind what was found
     * @param where the queue or scope, when the finding has one, else empty
     * @param key the key
     * @param detail for people: the counts or the ages
     */
    public Finding {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(where, "where");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(detail, "detail");
    }
  }

  /**
   * What an audit found.
   *
   * @param at the store's time when it ran
   * @param effectKeys keys the effects query returned (0 without effect checks)
   * @param receipts live receipts of the operation looked at (0 without effect checks)
   * @param counts findings per kind, every kind present
   * @param findings the first {@link #MAX_LISTED} findings
   */
  public record Report(
      Instant at, long effectKeys, long receipts, Map<Kind, Long> counts, List<Finding> findings) {
    /**
     * Checks and copies the fields.
     *
     * @param at the store's time when it ran
     * @param effectKeys keys the effects query returned (0 without effect checks)
     * @param receipts live receipts of the operation looked at (0 without effect checks)
     * @param counts findings per kind, every kind present
     * @param findings the first {@link #MAX_LISTED} findings
     */
    public Report {
      Objects.requireNonNull(at, "at");
      EnumMap<Kind, Long> all = new EnumMap<>(Kind.class);
      for (Kind k : Kind.values()) {
        all.put(k, counts.getOrDefault(k, 0L));
      }
      counts = Collections.unmodifiableMap(all);
      findings = List.copyOf(findings);
    }

    /** {@return whether nothing was found} */
    public boolean clean() {
      return total() == 0;
    }

    /** {@return how many findings there are, listed or not} */
    public long total() {
      return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Returns how many findings of one kind there are.
     *
     * @param kind the kind
     * @return the count
     */
    public long count(Kind kind) {
      return counts.get(kind);
    }
  }
}
