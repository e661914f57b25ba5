package dev.onceonly;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Checks an operation's arguments before anything is written (its schema: which members, which
 * types, which ranges). Registered per operation with {@link OnceOnlyBuilder#validator}. A check
 * that needs the key as well belongs in a {@link RequestValidator} ({@link
 * OnceOnlyBuilder#operation}).
 *
 * <p>A validator sees the arguments in their RFC 8785 canonical form, read back with a plain
 * Jackson {@code ObjectMapper}, never the caller's own tree: the same request reaches the store
 * from {@code execute}, from a queue's {@link dev.onceonly.queue.IntentMessage} and from a Redis
 * stream, and only the canonical form is the same on every path (a message carries canonical text).
 * So one validator gives one verdict for one request, whatever its transport. What that means for
 * numbers: every number is a double, written without fraction or exponent when it is an integer
 * below 10<sup>21</sup> in magnitude; such a number arrives as an integer node ({@code IntNode},
 * {@code LongNode} or {@code BigIntegerNode}), every other one as a {@code DoubleNode}. A caller's
 * {@code 10.0} arrives as {@code 10}, an integer, as it would through any transport; {@code 1e21}
 * arrives as a {@code DoubleNode}. Members of every object are in canonical order. Called only for
 * requests whose scope, key, operation and arguments passed the other checks, on the caller's
 * thread; it must be thread-safe.
 */
@FunctionalInterface
public interface ArgumentsValidator {
  /**
   * Checks the arguments.
   *
   * @param arguments the canonical arguments, read as a plain {@code ObjectMapper} reads their
   *     canonical text (a new tree for each call)
   * @throws InvalidRequestException if they are refused (use field {@code "arguments"})
   */
  void check(JsonNode arguments);
}
