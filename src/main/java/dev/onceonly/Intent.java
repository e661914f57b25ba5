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
 */
public record Intent(
    IntentKey key,
    String operation,
    Fingerprint fingerprint,
    JsonNode arguments,
    Instant registeredAt) {
  /**
   * Refuses nulls.
   *
   * @param key the intent's identity
   * @param operation the operation's name
   * @param fingerprint the fingerprint of operation and arguments
   * @param arguments the arguments in canonical form
   * @param registeredAt when it was registered
   */
  public Intent {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(arguments, "arguments");
    Objects.requireNonNull(registeredAt, "registeredAt");
  }
}
