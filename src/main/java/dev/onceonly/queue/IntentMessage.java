package dev.onceonly.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.Intent;
import dev.onceonly.IntentKey;
import dev.onceonly.IntentPublisher;
import dev.onceonly.InvalidRequestException;
import java.util.Objects;
import java.util.Set;

/**
 * The message that carries an intent through a queue: scope, key, operation and canonical
 * arguments. The message key stands for the intent's scope and key together (see {@link
 * #messageKey()}), so the queue deduplicates an intent while its message waits; the delivery
 * (lease) is never the identity.
 *
 * @param key the intent's identity
 * @param operation the operation's name
 * @param arguments the arguments
 */
public record IntentMessage(IntentKey key, String operation, JsonNode arguments) {
  private static final Set<String> MEMBERS = Set.of("scope", "key", "operation", "arguments");

  /** The queue's bound on a message key. */
  private static final int MAX_MESSAGE_KEY = 300;

  /**
   * Refuses nulls.
   *
   * @param key the intent's identity
   * @param operation the operation's name
   * @param arguments the arguments
   */
  public IntentMessage {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(arguments, "arguments");
  }

  /**
   * Returns the message for a registered intent.
   *
   * @param intent the intent
   * @return its message
   */
  public static IntentMessage of(Intent intent) {
    return new IntentMessage(intent.key(), intent.operation(), intent.arguments());
  }

  /**
   * Returns the queue message key of this intent, which no other intent shares: {@code scope/key}
   * when the scope holds only ASCII letters, digits and {@code . _ : @ -} (starting with a letter
   * or digit) and the key only those and {@code /}, as every scope and key of the default patterns
   * does; otherwise an escaped form that holds no {@code /}, such as {@code x:a@2f.b@@c} for scope
   * {@code a/b} and key {@code c} (see {@link IntentKey#toString()}). Messages sent by earlier
   * versions, which used {@code scope/key} for every intent, keep their key; only an intent whose
   * scope holds a {@code /} or whose parts hold other characters gets a new one.
   *
   * @return the message key, at most 300 characters
   * @throws InvalidRequestException (field {@code "key"}) if the key would be longer than the
   *     queue's 300 characters
   */
  public String messageKey() {
    String messageKey = key.toString();
    if (messageKey.length() > MAX_MESSAGE_KEY) {
      throw new InvalidRequestException(
          "key",
          "scope and key make a message key of "
              + messageKey.length()
              + " characters, more than "
              + MAX_MESSAGE_KEY);
    }
    return messageKey;
  }

  /** {@return the JSON payload} */
  public ObjectNode toJson() {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("scope", key.scope());
    node.put("key", key.key());
    node.put("operation", operation);
    node.set("arguments", arguments);
    return node;
  }

  /**
   * Returns the queue message for {@code queue}.
   *
   * @param queue the queue's name
   * @return the message, due now
   */
  public Message toMessage(String queue) {
    return Message.of(queue, messageKey(), toJson());
  }

  /**
   * Reads a payload written by {@link #toJson()}.
   *
   * @param payload the payload
   * @return the message
   * @throws InvalidRequestException (field {@code "payload"}) if the payload is not exactly an
   *     object with string {@code scope}, {@code key}, {@code operation} and an {@code arguments}
   *     member
   */
  public static IntentMessage decode(JsonNode payload) {
    if (payload == null || !payload.isObject()) {
      throw new InvalidRequestException("payload", "must be a JSON object");
    }
    for (var it = payload.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!MEMBERS.contains(name)) {
        throw new InvalidRequestException("payload", "unknown member \"" + name + "\"");
      }
    }
    return new IntentMessage(
        IntentKey.of(text(payload, "scope"), text(payload, "key")),
        text(payload, "operation"),
        required(payload, "arguments"));
  }

  private static String text(JsonNode payload, String name) {
    JsonNode v = required(payload, name);
    if (!v.isTextual()) {
      throw new InvalidRequestException("payload", "\"" + name + "\" must be a string");
    }
    return v.textValue();
  }

  private static JsonNode required(JsonNode payload, String name) {
    JsonNode v = payload.get(name);
    if (v == null) {
      throw new InvalidRequestException("payload", "missing member \"" + name + "\"");
    }
    return v;
  }

  /**
   * Whether a dead letter's payload carries this intent. A dead letter written by an earlier
   * version under {@code scope/key} for a scope holding a {@code /} has the key another intent now
   * uses; it must not stop that other intent from being published.
   */
  private static boolean carries(JsonNode payload, IntentKey key) {
    try {
      return decode(payload).key().equals(key);
    } catch (InvalidRequestException e) {
      return true; // not an intent message: keep the earlier answer, dead-lettered
    }
  }

  /**
   * Returns a publisher that sends intents to a queue of the job queue, for the {@link
   * dev.onceonly.Reconciler} and for producers.
   *
   * @param jobs the job queue
   * @param queue the queue's name
   * @return the publisher
   */
  public static IntentPublisher publisher(JobQueue jobs, String queue) {
    Objects.requireNonNull(jobs, "jobs");
    Objects.requireNonNull(queue, "queue");
    return intent -> {
      IntentMessage message = of(intent);
      if (jobs.findDeadLetter(queue, message.messageKey())
          .filter(dead -> carries(dead.payload(), intent.key()))
          .isPresent()) {
        return IntentPublisher.Publication.DEAD_LETTERED;
      }
      return switch (jobs.send(message.toMessage(queue)).status()) {
        case SENT -> IntentPublisher.Publication.PUBLISHED;
        case REPEATED -> IntentPublisher.Publication.ALREADY_QUEUED;
        case CONFLICT -> IntentPublisher.Publication.CONFLICT;
      };
    };
  }
}
