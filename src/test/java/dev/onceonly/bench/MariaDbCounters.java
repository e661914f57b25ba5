package dev.onceonly.bench;

import dev.onceonly.testing.MariaDbServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * What a measured run cost on the tests' {@code mariadbd} and in this JVM, per job: the server's
 * CPU time (its {@code /proc/PID/stat}, in clock ticks of 10 ms), this JVM's CPU time (its {@code
 * /proc/self/stat}), the statements the server received ({@code Questions}), the read-write
 * transactions InnoDB committed ({@code trx_rw_commits} of {@code INNODB_METRICS}) and the redo
 * log's fsyncs ({@code Innodb_os_log_fsyncs}). The counters are the server's, for every client: the
 * harness is the only one during a run, and its own few counting statements are left in.
 */
final class MariaDbCounters {
  /** The length of a clock tick of {@code /proc/PID/stat}: {@code getconf CLK_TCK} is 100. */
  private static final long NANOS_PER_TICK = 10_000_000L;

  record Snapshot(
      long serverCpuNanos,
      long clientCpuNanos,
      long statements,
      long rwCommits,
      long logWrites,
      long fsyncs) {
    /** {@return the cost per job from this snapshot to {@code later}, over {@code jobs} jobs} */
    String perJob(Snapshot later, long jobs) {
      if (jobs <= 0) {
        return "-";
      }
      double n = jobs;
      return String.format(
          Locale.ROOT,
          "server CPU %.3f ms, client CPU %.3f ms, %.2f statements, %.2f commits, %.2f log writes,"
              + " %.2f fsyncs",
          (later.serverCpuNanos - serverCpuNanos) / 1e6 / n,
          (later.clientCpuNanos - clientCpuNanos) / 1e6 / n,
          (later.statements - statements) / n,
          (later.rwCommits - rwCommits) / n,
          (later.logWrites - logWrites) / n,
          (later.fsyncs - fsyncs) / n);
    }
  }

  private MariaDbCounters() {}

  /** Takes a snapshot of the counters now. */
  static Snapshot take() {
    try (Connection c = MariaDbServer.connect("");
        Statement s = c.createStatement()) {
      s.execute("SET GLOBAL innodb_monitor_enable = 'trx_rw_commits'");
      long statements = status(s, "Questions");
      long logWrites = status(s, "Innodb_log_writes");
      long fsyncs = status(s, "Innodb_data_fsyncs");
      long commits;
      try (ResultSet rs =
          s.executeQuery(
              "SELECT `COUNT` FROM information_schema.INNODB_METRICS"
                  + " WHERE NAME = 'trx_rw_commits'")) {
        rs.next();
        commits = rs.getLong(1);
      }
      return new Snapshot(serverCpu(), clientCpu(), statements, commits, logWrites, fsyncs);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the server's counters", e);
    }
  }

  /**
   * The server's settings that decide what a commit costs, for the head of a report: the redo log's
   * flush at commit, the binary log and its sync, the doublewrite buffer, the flush method.
   */
  static String durabilitySettings() {
    StringJoiner out = new StringJoiner(", ");
    try (Connection c = MariaDbServer.connect("");
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_flush_log_at_trx_commit',"
                    + " 'log_bin', 'sync_binlog', 'innodb_doublewrite', 'innodb_flush_method',"
                    + " 'version')")) {
      while (rs.next()) {
        out.add(rs.getString(1) + "=" + rs.getString(2));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the server's settings", e);
    }
    return out.toString();
  }

  private static long status(Statement s, String name) throws SQLException {
    try (ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE '" + name + "'")) {
      rs.next();
      return rs.getLong(2);
    }
  }

  private static long serverCpu() {
    return cpu(Long.toString(MariaDbServer.pid()));
  }

  /** This JVM's CPU time, read as the server's is. */
  private static long clientCpu() {
    return cpu("self");
  }

  /** The user and system CPU time of process {@code pid} ({@code self} for this one). */
  private static long cpu(String pid) {
    try {
      String stat = Files.readString(Path.of("/proc", pid, "stat"));
      // Fields after the command's closing parenthesis; utime and stime are fields 14 and 15.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
