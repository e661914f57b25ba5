package dev.onceonly.redis;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.Canonicalizer;
import dev.onceonly.Intent;
import dev.onceonly.IntentKey;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The message that carries one intent through a stream: its scope, key, operation and canonical
 * arguments, as the fields {@code scope}, {@code key}, {@code operation} and {@code arguments} of a
 * stream entry. The entry's id is a delivery id, never the intent's identity: the same intent may
 * be added many times, and the receiver recognises it by scope and key.
 *
 * <p>A message whose intent recorded the W3C {@code traceparent} of the request that registered it
 * ({@link Intent#traceparent()}) carries it as a fifth field, {@code traceparent}, so that the
 * receiver can link its work to that request. A receiver older than this field refuses such an
 * entry as {@link MalformedMessageException.Problem#UNKNOWN_FIELD}: upgrade receivers first.
 *
 * @param key the intent's identity
 * @param operation the operation's name
 * @param arguments the arguments
 * @param traceparent the W3C traceparent of the request that registered the intent, or null
 */
public record StreamMessage(
    IntentKey key, String operation, JsonNode arguments, String traceparent) {
  /** The entry's field names, in the order they are written. */
  static final String SCOPE = "scope";

  static final String KEY = "key";
  static final String OPERATION = "operation";
  static final String ARGUMENTS = "arguments";
  static final String TRACEPARENT = "traceparent";

  /** A W3C traceparent of printable ASCII, as the stores keep it. */
  static final Pattern TRACEPARENT_VALUE =
      Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}[\\x21-\\x7e]{0,60}");

  /**
   * Refuses nulls but the traceparent, and a traceparent that is not one.
   *
   * @param key the intent's identity
   * @param operation the operation's name
   * @param arguments the arguments
   * @param traceparent the request's W3C traceparent, or null
   * @throws IllegalArgumentException if the traceparent is not a W3C traceparent of at most 128
   *     printable ASCII characters
   */
  public StreamMessage {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(arguments, "arguments");
    if (traceparent != null && !TRACEPARENT_VALUE.matcher(traceparent).matches()) {
      throw new IllegalArgumentException(
          "traceparent must be a W3C traceparent of at most 128 printable ASCII characters");
    }
  }

  /**
   * A message without a traceparent.
   *
   * @param key the intent's identity
   * @param operation the operation's name
   * @param arguments the arguments
   */
  public StreamMessage(IntentKey key, String operation, JsonNode arguments) {
    this(key, operation, arguments, null);
  }

  /**
   * Returns the message of a registered intent.
   *
   * @param intent the intent
   * @return its message
   */
  public static StreamMessage of(Intent intent) {
    return new StreamMessage(
        intent.key(), intent.operation(), intent.arguments(), intent.traceparent());
  }

  /**
   * Returns the entry's fields, the arguments in RFC 8785 canonical form.
   *
   * @param canonicalizer the canonicalizer that writes the arguments
   * @return the fields in writing order
   * @throws dev.onceonly.InvalidRequestException (field {@code "scope"}, {@code "key"} or {@code
   *     "operation"}) if one holds a control character or an unpaired surrogate, which the client
   *     would send as {@code ?}, so that two scopes would arrive as one
   */
  public Map<String, String> fields(Canonicalizer canonicalizer) {
    FieldText.check("scope", key.scope());
    FieldText.check("key", key.key());
    FieldText.check("operation", operation);
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put(SCOPE, key.scope());
    fields.put(KEY, key.key());
    fields.put(OPERATION, operation);
    fields.put(ARGUMENTS, canonicalizer.canonicalString(arguments));
    if (traceparent != null) {
      fields.put(TRACEPARENT, traceparent);
    }
    return fields;
  }
}
