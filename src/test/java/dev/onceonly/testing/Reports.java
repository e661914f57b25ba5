package dev.onceonly.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.ArgumentsValidator;
import dev.onceonly.Effect;
import dev.onceonly.InvalidRequestException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** Seed 000's report receiver: samples in, one report row out, refused unless well formed. */
public final class Reports {
  private Reports() {}

  /** The operation's name. */
  public static final String OPERATION = "make_report";

  /** A report, the result stored in the receipt. */
  public record Report(int cantidad, int minimo, int maximo, double media) {}

  /**
   * Seed 000's {@code canonico}: only the member "muestras", 1 to 100 samples, each an integer (not
   * a boolean, not a fraction) between 0 and 10,000.
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

  public static void createTable(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS reports (job_id VARCHAR(64) PRIMARY KEY,"
              + " media DOUBLE PRECISION NOT NULL)");
    }
  }

  /** The effect: compute the report and insert its row. */
  public static Effect<Report, SQLException> create(String jobId, List<Integer> samples) {
    return c -> {
      int min = samples.stream().mapToInt(Integer::intValue).min().orElseThrow();
      int max = samples.stream().mapToInt(Integer::intValue).max().orElseThrow();
      double mean = samples.stream().mapToInt(Integer::intValue).average().orElseThrow();
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO reports (job_id, media) VALUES (?, ?)")) {
        ps.setString(1, jobId);
        ps.setDouble(2, mean);
        ps.executeUpdate();
      }
      return new Report(samples.size(), min, max, mean);
    };
  }
}
