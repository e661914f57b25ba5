package dev.onceonly;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The answer of an idempotent step: the effect ran now, it had already run, the key belongs to
 * other content, or the key's receipt has expired.
 *
 * <p>These are normal answers, not errors, so they are values. Use {@link #fold} to handle each
 * case, or {@link #resultOrThrow()} to treat the last two as exceptions.
 *
 * @param <T> the effect's result type
 */
public sealed interface Outcome<T>
    permits Outcome.Created, Outcome.Repeated, Outcome.Conflict, Outcome.Expired {

  /** {@return the intent this outcome is about} */
  IntentKey key();

  /**
   * The effect ran in this call and committed together with its receipt.
   *
   * @param key the intent
   * @param fingerprint the fingerprint of the request
   * @param result the effect's result, as stored in the receipt
   * @param createdAt when the receipt was written
   * @param <T> the result type
   */
  record Created<T>(IntentKey key, Fingerprint fingerprint, T result, Instant createdAt)
      implements Outcome<T> {
    /**
     * Refuses null components other than the result.
     *
     * @param key the intent
     * @param fingerprint the fingerprint of the request
     * @param result the effect's result, as stored in the receipt
     * @param createdAt when the receipt was written
     */
    public Created {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(fingerprint, "fingerprint");
      Objects.requireNonNull(createdAt, "createdAt");
    }
  }

  /**
   * The effect had already run for the same content; this is its stored result, read from the
   * receipt (never rebuilt from other tables, which may have changed since).
   *
   * @param key the intent
   * @param fingerprint the fingerprint shared by the request and the receipt
   * @param result the stored result
   * @param createdAt when the receipt was first written
   * @param <T> the result type
   */
  record Repeated<T>(IntentKey key, Fingerprint fingerprint, T result, Instant createdAt)
      implements Outcome<T> {
    /**
     * Refuses null components other than the result.
     *
     * @param key the intent
     * @param fingerprint the fingerprint shared by the request and the receipt
     * @param result the stored result
     * @param createdAt when the receipt was first written
     */
    public Repeated {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(fingerprint, "fingerprint");
      Objects.requireNonNull(createdAt, "createdAt");
    }
  }

  /**
   * The key already belongs to other content (a receipt or a registered intent with another
   * fingerprint). Nothing ran and nothing was written.
   *
   * @param key the intent
   * @param stored the fingerprint already recorded for the key
   * @param requested the fingerprint of this request
   * @param <T> the result type
   */
  record Conflict<T>(IntentKey key, Fingerprint stored, Fingerprint requested)
      implements Outcome<T> {
    /**
     * Refuses null components.
     *
     * @param key the intent
     * @param stored the fingerprint already recorded for the key
     * @param requested the fingerprint of this request
     */
    public Conflict {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(stored, "stored");
      Objects.requireNonNull(requested, "requested");
    }
  }

  /**
   * The key ran before, but its result is past retention; only a tombstone remains. The effect is
   * not run again while the tombstone is kept, so reuse is reported instead of silently repeated.
   * Nothing ran and nothing was written.
   *
   * @param key the intent
   * @param fingerprint the fingerprint recorded in the tombstone
   * @param expiredAt when the result expired
   * @param <T> the result type
   */
  record Expired<T>(IntentKey key, Fingerprint fingerprint, Instant expiredAt)
      implements Outcome<T> {
    /**
     * Refuses null components.
     *
     * @param key the intent
     * @param fingerprint the fingerprint recorded in the tombstone
     * @param expiredAt when the result expired
     */
    public Expired {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(fingerprint, "fingerprint");
      Objects.requireNonNull(expiredAt, "expiredAt");
    }
  }

  /**
   * Applies the function that matches this outcome and returns its value.
   *
   * @param created called for {@link Created}
   * @param repeated called for {@link Repeated}
   * @param conflict called for {@link Conflict}
   * @param expired called for {@link Expired}
   * @param <R> the common return type
   * @return what the matching function returned
   */
  default <R> R fold(
      Function<? super Created<T>, ? extends R> created,
      Function<? super Repeated<T>, ? extends R> repeated,
      Function<? super Conflict<T>, ? extends R> conflict,
      Function<? super Expired<T>, ? extends R> expired) {
    if (this instanceof Created<T> c) {
      return created.apply(c);
    }
    if (this instanceof Repeated<T> r) {
      return repeated.apply(r);
    }
    if (this instanceof Conflict<T> c) {
      return conflict.apply(c);
    }
    return expired.apply((Expired<T>) this);
  }

  /**
   * Returns the result of a created or repeated step.
   *
   * @return the result (may be {@code null} if the effect returned null)
   * @throws ConflictException if this is a {@link Conflict}
   * @throws ExpiredException if this is an {@link Expired}
   */
  default T resultOrThrow() {
    if (this instanceof Created<T> c) {
      return c.result();
    }
    if (this instanceof Repeated<T> r) {
      return r.result();
    }
    if (this instanceof Conflict<T> c) {
      throw new ConflictException(c.key(), c.stored(), c.requested());
    }
    Expired<T> e = (Expired<T>) this;
    throw new ExpiredException(e.key(), e.expiredAt());
  }

  /** {@return the result of a created or repeated step, or empty for the other outcomes} */
  default Optional<T> toOptional() {
    if (this instanceof Created<T> c) {
      return Optional.ofNullable(c.result());
    }
    if (this instanceof Repeated<T> r) {
      return Optional.ofNullable(r.result());
    }
    return Optional.empty();
  }
}
