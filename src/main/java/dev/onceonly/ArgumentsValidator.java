package dev.onceonly;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Checks an operation's arguments before anything is written (its schema: which members, which
 * types, which ranges). Registered per operation with {@link OnceOnly.Builder#validator}.
 */
@FunctionalInterface
public interface ArgumentsValidator {
  /**
   * Checks the arguments.
   *
   * @param arguments the arguments, already canonical I-JSON
   * @throws InvalidRequestException if they are refused (use field {@code "arguments"})
   */
  void check(JsonNode arguments);
}
