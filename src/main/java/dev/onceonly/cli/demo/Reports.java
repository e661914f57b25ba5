package dev.onceonly.cli.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.ArgumentsValidator;
import dev.onceonly.InvalidRequestException;
import java.util.List;

/** The report workshop's operation: its name, its schema check and its result. */
public final class Reports {
  private Reports() {}

  /** The operation's name. */
  public static final String OPERATION = "make_report";

  /**
   * A report, the result stored in the receipt.
   *
   * @param count how many samples
   * @param minimum the smallest sample
   * @param maximum the largest sample
   * @param mean the mean
   */
  public record Report(int count, int minimum, int maximum, double mean) {
    /**
     * Computes the report of some samples.
     *
     * @param samples at least one sample
     * @return count, minimum, maximum and mean
     */
    public static Report of(List<Integer> samples) {
      int min = samples.stream().mapToInt(Integer::intValue).min().orElseThrow();
      int max = samples.stream().mapToInt(Integer::intValue).max().orElseThrow();
      double mean = samples.stream().mapToInt(Integer::intValue).average().orElseThrow();
      return new Report(samples.size(), min, max, mean);
    }
  }

  /**
   * The workshop's schema check: only the member "samples", 1 to 100 samples, each an integer (not
   * a boolean, not a fraction) between 0 and 10,000. It sees the canonical form, as every validator
   * does, so a caller's {@code 10.0} is the integer {@code 10}, as it is through the queue and
   * Redis.
   */
  public static final ArgumentsValidator VALIDATOR = Reports::check;

  private static void check(JsonNode arguments) {
    if (!arguments.isObject() || arguments.size() != 1 || !arguments.has("samples")) {
      throw new InvalidRequestException(
          "arguments", "unknown schema: only \"samples\" is expected");
    }
    JsonNode samples = arguments.get("samples");
    if (!samples.isArray() || samples.size() < 1 || samples.size() > 100) {
      throw new InvalidRequestException("arguments", "use 1 to 100 samples");
    }
    for (JsonNode x : samples) {
      if (!x.isIntegralNumber()
          || !x.canConvertToInt()
          || x.intValue() < 0
          || x.intValue() > 10000) {
        throw new InvalidRequestException(
            "arguments", "each sample must be an integer between 0 and 10000");
      }
    }
  }
}
