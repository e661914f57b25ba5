package dev.onceonly.cli.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.ArgumentsValidator;
import dev.onceonly.InvalidRequestException;
import java.util.List;

/** Seed 000's report operation: its name, its schema check and its result. */
public final class Reports {
  private Reports() {}

  /** The operation's name. */
  public static final String OPERATION = "make_report";

  /**
   * A report, the result stored in the receipt.
   *
   * @param cantidad how many samples
   * @param minimo the smallest sample
   * @param maximo the largest sample
   * @param media the mean
   */
  public record Report(int cantidad, int minimo, int maximo, double media) {
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
   * Seed 000's {@code canonico}: only the member "muestras", 1 to 100 samples, each an integer (not
   * a boolean, not a fraction) between 0 and 10,000. It sees the canonical form, as every validator
   * does, so a caller's {@code 10.0} is the integer {@code 10}, as it is through the queue and
   * Redis.
   */
  public static final ArgumentsValidator VALIDATOR = Reports::check;

  private static void check(JsonNode arguments) {
    if (!arguments.isObject() || arguments.size() != 1 || !arguments.has("muestras")) {
      throw new InvalidRequestException("arguments", "Esquema desconocido");
    }
    JsonNode samples = arguments.get("muestras");
    if (!samples.isArray() || samples.size() < 1 || samples.size() > 100) {
      throw new InvalidRequestException("arguments", "Usa entre 1 y 100 muestras");
    }
    for (JsonNode x : samples) {
      if (!x.isIntegralNumber()
          || !x.canConvertToInt()
          || x.intValue() < 0
          || x.intValue() > 10000) {
        throw new InvalidRequestException(
            "arguments", "Cada muestra debe ser un entero entre 0 y 10000");
      }
    }
  }
}
