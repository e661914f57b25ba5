package dev.onceonly;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Objects;

/**
 * A registered intention, as the {@link IntentStore} keeps it.
 *
 * @param key the intent's identity
 * @param operation the operation's name
 * @param fingerprint the fingerprint of operation and arguments
 * @param arguments the arguments in canonical form
 * @param registeredAt when it was registered
 * @param traceparent the W3C {@code traceparent} of the thread that registered it, when the store
 *     has a {@link TraceContext} ({@code OnceOnlyBuilder#traceContext}); null otherwise, and for
 *     intents registered before schema version 11. A reconciliation can link its work to the
 *     request that recorded the intent.
 */
public record Intent(
    IntentKey key,
    String operation,
    Fingerprint fingerprint,
    JsonNode arguments,
    Instant registeredAt,
    String traceparent) {
  /**
   * Refuses nulls but the traceparent.
   *
   * @param key the intent's identity
   * @param operation the operation's name
   * @param fingerprint the fingerprint of operation and arguments
   * @param arguments the arguments in canonical form
   * @param registeredAt when it was registered
   * @param traceparent the registering thread's traceparent, or null
   */
  public Intent {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(arguments, "arguments");
    Objects.requireNonNull(registeredAt, "registeredAt");
  }

  /**
   * An intent without a traceparent.
   *
   * @param key the intent's identity
   * @param operation the operation's name
   * @param fingerprint the fingerprint of operation and arguments
   * @param arguments the arguments in canonical form
   * @param registeredAt when it was registered
   */
  public Intent(
      IntentKey key,
      String operation,
      Fingerprint fingerprint,
      JsonNode arguments,
      Instant registeredAt) {
    this(key, operation, fingerprint, arguments, registeredAt, null);
  }
}
