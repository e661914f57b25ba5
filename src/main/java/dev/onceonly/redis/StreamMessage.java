package dev.onceonly.redis;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.Canonicalizer;
import dev.onceonly.Intent;
import dev.onceonly.IntentKey;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The message that carries one intent through a stream: its scope, key, operation and canonical
 * arguments, as the fields {@code scope}, {@code key}, {@code operation} and {@code arguments} of a
 * stream entry. The entry's id is a delivery id, never the intent's identity: the same intent may
 * be added many times, and the receiver recognises it by scope and key.
 *
 * @param key the intent's identity
 * @param operation the operation's name
 * @param arguments the arguments
 */
public record StreamMessage(IntentKey key, String operation, JsonNode arguments) {
  /** The entry's field names, in the order they are written. */
  static final String SCOPE = "scope";

  static final String KEY = "key";
  static final String OPERATION = "operation";
  static final String ARGUMENTS = "arguments";

  /**
   * Refuses nulls.
   *
   * @param key the intent's identity
   * @param operation the operation's name
   * @param arguments the arguments
   */
  public StreamMessage {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(arguments, "arguments");
  }

  /**
   * Returns the message of a registered intent.
   *
   * @param intent the intent
   * @return its message
   */
  public static StreamMessage of(Intent intent) {
    return new StreamMessage(intent.key(), intent.operation(), intent.arguments());
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
    return fields;
  }
}
