package dev.onceonly.testing;

import dev.onceonly.Effect;
import dev.onceonly.cli.demo.Reports.Report;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * A reports table for the contract tests: one row per job id (a primary key), so that a second
 * insert for the same job fails loudly.
 */
public final class ReportTable {
  private ReportTable() {}

  public static void createTable(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS reports (job_id VARCHAR(64) PRIMARY KEY,"
              + " mean DOUBLE PRECISION NOT NULL)");
    }
  }

  /** The effect: compute the report and insert its row. */
  public static Effect<Report, SQLException> create(String jobId, List<Integer> samples) {
    return c -> {
      Report report = Report.of(samples);
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO reports (job_id, mean) VALUES (?, ?)")) {
        ps.setString(1, jobId);
        ps.setDouble(2, report.mean());
        ps.executeUpdate();
      }
      return report;
    };
  }
}
