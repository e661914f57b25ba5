package dev.onceonly.cli.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/**
 * What the demo left in the database, counted from its rows, plus the answers of this run.
 *
 * @param intents report intents registered, plus ticket intents with a receipt
 * @param effects intents whose business row exists (a report row, a ticket)
 * @param duplicates business rows beyond one per intent
 * @param repeated answers of this run that came from a stored receipt
 * @param conflicts requests of this run refused as a conflicting intent
 * @param rejected rejections this run recorded
 * @param pending intents without a receipt, plus messages still queued, in flight or dead-lettered,
 *     in the store's tables or in the transport (a Redis stream's pending and undelivered entries
 *     and its dead letters)
 */
public record Summary(
    long intents,
    long effects,
    long duplicates,
    long repeated,
    long conflicts,
    long rejected,
    long pending) {

  /** Returns whether every intent has exactly one effect and nothing is left pending. */
  public boolean ok() {
    return effects == intents && duplicates == 0 && pending == 0;
  }

  /**
   * Returns the machine-checkable last line, for example {@code demo: intents=201 effects=201
   * duplicates=0 repeated=0 conflicts=1 rejected=4 pending=0 OK}.
   *
   * @return the line, ending in {@code OK} or {@code FAILED}
   */
  public String line() {
    return String.format(
        Locale.ROOT,
        "demo: intents=%d effects=%d duplicates=%d repeated=%d conflicts=%d rejected=%d"
            + " pending=%d %s",
        intents,
        effects,
        duplicates,
        repeated,
        conflicts,
        rejected,
        pending,
        ok() ? "OK" : "FAILED");
  }

  /**
   * Returns the summary a person reads, ending with {@link #line()}.
   *
   * @return the lines
   */
  public List<String> lines() {
    return List.of(
        "",
        "summary (counted from the rows in the database)",
        row("intents", intents, "report jobs registered and tickets asked for"),
        row("effects", effects, "intents with their business row: a report, a ticket"),
        row("duplicates", duplicates, "business rows beyond one per intent"),
        row("repeated", repeated, "answered from a stored receipt in this run"),
        row("conflicts", conflicts, "same key, other content: refused, nothing written"),
        row("rejected", rejected, "hostile messages kept as bounded rejections in this run"),
        row("pending", pending, "intents without a receipt, messages queued or dead"),
        line());
  }

  private static String row(String name, long value, String meaning) {
    return String.format(Locale.ROOT, "  %-11s %6d  %s", name, value, meaning);
  }

  /**
   * Counts the demo's rows.
   *
   * @param c a connection to the demo's database (default table prefix)
   * @param repeated this run's repeated answers
   * @param conflicts this run's conflicts
   * @param rejected this run's rejections
   * @param pendingInTransport what the transport holds outside the tables and is not settled
   * @return the summary
   * @throws SQLException if a table is missing or the database fails
   */
  static Summary count(
      Connection c, long repeated, long conflicts, long rejected, long pendingInTransport)
      throws SQLException {
    String scope = ReportPipeline.SCOPE;
    String queue = ReportPipeline.QUEUE;
    long reportIntents =
        count(
            c,
            "SELECT COUNT(*) FROM onceonly_intents WHERE scope = ? AND operation = ?",
            scope,
            Reports.OPERATION);
    long reports =
        count(
            c,
            "SELECT COUNT(DISTINCT r.job_id) FROM reports r JOIN onceonly_intents i"
                + " ON i.scope = r.scope AND i.intent_key = r.job_id");
    long reportRows = count(c, "SELECT COUNT(*) FROM reports");
    long distinctReports =
        count(c, "SELECT COUNT(*) FROM (SELECT DISTINCT scope, job_id FROM reports) d");
    long ticketIntents =
        count(
            c,
            "SELECT COUNT(*) FROM onceonly_receipts WHERE scope = ? AND operation = ?",
            Demo.TICKET_SCOPE,
            Tickets.OPERATION);
    long tickets = count(c, "SELECT COUNT(*) FROM tickets WHERE owner = ?", Demo.TICKET_SCOPE);
    long pending =
        count(
                c,
                "SELECT COUNT(*) FROM onceonly_intents i LEFT JOIN onceonly_receipts r"
                    + " ON r.scope = i.scope AND r.intent_key = i.intent_key"
                    + " WHERE i.scope = ? AND r.intent_key IS NULL",
                scope)
            + count(c, "SELECT COUNT(*) FROM onceonly_messages WHERE queue = ?", queue)
            + count(c, "SELECT COUNT(*) FROM onceonly_dead_letters WHERE queue = ?", queue)
            + pendingInTransport;
    return new Summary(
        reportIntents + ticketIntents,
        reports + Math.min(tickets, ticketIntents),
        (reportRows - distinctReports) + Math.max(0, tickets - ticketIntents),
        repeated,
        conflicts,
        rejected,
        pending);
  }

  /** Runs a {@code SELECT COUNT(*)} with string parameters. */
  static long count(Connection c, String sql, String... parameters) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setString(i + 1, parameters[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
