package dev.onceonly;

import java.util.Objects;

/**
 * The answer of {@link IntentStore#register}: the intent is new, was already registered with the
 * same content, or its key belongs to other content.
 */
public sealed interface Registration
    permits Registration.Registered, Registration.AlreadyRegistered, Registration.Conflict {

  /** {@return the intent this answer is about} */
  IntentKey key();

  /** {@return the fingerprint of the request} */
  Fingerprint fingerprint();

  /**
   * The intent was recorded by this call.
   *
   * @param key the intent
   * @param fingerprint its fingerprint
   */
  record Registered(IntentKey key, Fingerprint fingerprint) implements Registration {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param fingerprint its fingerprint
     */
    public Registered {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(fingerprint, "fingerprint");
    }
  }

  /**
   * The same intent (same key, same fingerprint) was already recorded; nothing changed.
   *
   * @param key the intent
   * @param fingerprint its fingerprint
   */
  record AlreadyRegistered(IntentKey key, Fingerprint fingerprint) implements Registration {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param fingerprint its fingerprint
     */
    public AlreadyRegistered {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(fingerprint, "fingerprint");
    }
  }

  /**
   * The key is registered with other content; nothing was written.
   *
   * @param key the intent
   * @param fingerprint the fingerprint of the refused request
   * @param stored the fingerprint already registered
   */
  record Conflict(IntentKey key, Fingerprint fingerprint, Fingerprint stored)
      implements Registration {
    /**
     * Refuses nulls.
     *
     * @param key the intent
     * @param fingerprint the fingerprint of the refused request
     * @param stored the fingerprint already registered
     */
    public Conflict {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(fingerprint, "fingerprint");
      Objects.requireNonNull(stored, "stored");
    }
  }

  /**
   * Returns this answer unless it is a conflict.
   *
   * @return this registration
   * @throws ConflictException if this is a {@link Conflict}
   */
  default Registration orThrow() {
    if (this instanceof Conflict c) {
      throw new ConflictException(c.key(), c.stored(), c.fingerprint());
    }
    return this;
  }
}
