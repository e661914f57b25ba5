package dev.onceonly.redis;

import dev.onceonly.Intent;
import dev.onceonly.IntentKey;
import dev.onceonly.IntentStore;
import dev.onceonly.Registration;
import java.util.Objects;

/**
 * The producer of a register-then-publish pipeline: registers an intent in the {@link IntentStore}
 * first, then adds its message to the stream. If the process dies in between, the {@link
 * dev.onceonly.Reconciler} publishes the intent later; if the reply of {@code XADD} is lost,
 * publishing again is safe, since the receiver recognises the intent by scope and key. Thread-safe.
 */
public final class RedisProducer {
  private final IntentStore intents;
  private final RedisStream stream;

  private RedisProducer(IntentStore intents, RedisStream stream) {
    this.intents = Objects.requireNonNull(intents, "intents");
    this.stream = Objects.requireNonNull(stream, "stream");
  }

  /**
   * Returns a producer.
   *
   * @param intents where intents are registered before they are published
   * @param stream where they are published
   * @return the producer
   */
  public static RedisProducer of(IntentStore intents, RedisStream stream) {
    return new RedisProducer(intents, stream);
  }

  /**
   * Registers an intent and, unless its key belongs to other content, adds its message (the
   * arguments in canonical form, as registered) to the stream.
   *
   * @param key the intent's identity, kept the same across every retry
   * @param operation the operation's name
   * @param arguments the arguments: a Jackson tree or any value Jackson turns into one
   * @return the registration and the entry added, if any
   * @throws dev.onceonly.InvalidRequestException if the store refuses the request; nothing written
   * @throws dev.onceonly.CanonicalizationException if the arguments are not I-JSON or too large
   * @throws RedisTransportException if the entry may not have been added; the intent is registered,
   *     so publishing again (or the reconciler) finishes the job
   */
  public Publication publish(IntentKey key, String operation, Object arguments) {
    Registration registration = intents.register(key, operation, arguments);
    if (registration instanceof Registration.Conflict) {
      return new Publication(registration, null);
    }
    Intent intent =
        intents
            .find(key)
            .orElseThrow(() -> new IllegalStateException("registered intent not found: " + key));
    return new Publication(registration, stream.add(StreamMessage.of(intent)));
  }

  /**
   * What {@link #publish} did.
   *
   * @param registration the answer of the intent store
   * @param entryId the id of the stream entry added, or {@code null} if the key belongs to other
   *     content and nothing was published
   */
  public record Publication(Registration registration, String entryId) {
    /**
     * Refuses a null registration.
     *
     * @param registration the answer of the intent store
     * @param entryId the id of the stream entry added, or {@code null}
     */
    public Publication {
      Objects.requireNonNull(registration, "registration");
    }

    /** {@return whether an entry was added} */
    public boolean published() {
      return entryId != null;
    }
  }
}
