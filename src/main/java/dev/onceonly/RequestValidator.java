package dev.onceonly;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Checks one operation's request as a whole, key and arguments together, before anything is
 * written: a rule such as "a refund's key names the order its arguments are about", which an {@link
 * ArgumentsValidator} cannot see. Set per operation with {@link OperationRules.Builder#validator}.
 *
 * <p>It sees what an {@link ArgumentsValidator} sees: the arguments in their canonical form, read
 * back with a plain Jackson {@code ObjectMapper}, the same on every path (execute, register, a
 * queue's message, a Redis stream). Called only for requests whose scope, key, operation and
 * arguments passed the other checks (the operation's own {@link ArgumentsValidator} first, if any),
 * on the caller's thread; it must be thread-safe.
 */
@FunctionalInterface
public interface RequestValidator {
  /**
   * Checks the request.
   *
   * @param key the intent's identity, already checked against the operation's key pattern
   * @param arguments the canonical arguments (a new tree for each call)
   * @throws InvalidRequestException if the request is refused (name the field: {@code "key"} or
   *     {@code "arguments"})
   */
  void check(IntentKey key, JsonNode arguments);
}
