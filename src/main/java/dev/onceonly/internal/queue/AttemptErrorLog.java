package dev.onceonly.internal.queue;

import dev.onceonly.internal.db.StatementCache;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.receipts.SqlRejectionStore;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.AttemptError;
import dev.onceonly.queue.Lease;
import java.lang.invoke.MethodHandles;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The errors of failed attempts, kept per message (queue and key) in {@code attempt_errors}: an
 * entry is written in the transaction that records the failure, after the fenced statement that
 * holds the message, and the entries beyond the newest {@code kept} are deleted then. On a failure
 * of a key with fewer entries than that, one statement; beyond, two.
 */
final class AttemptErrorLog {
  /** The most causes a trace names. */
  private static final int MAX_CAUSES = 16;

  private final StoreContext core;
  private final InstantColumns times;
  private final int kept;
  private final Statements sql;

  AttemptErrorLog(StoreContext core, String prefix, int kept) {
    this.core = core;
    this.times = core.times();
    this.kept = kept;
    this.sql = new Statements(prefix);
  }

  /** The statements, built once for a prefix. */
  static final class Statements {
    final String insert;
    final String trim;
    final String list;
    final String forget;

    Statements(String p) {
      String e = p + "attempt_errors";
      insert =
          "INSERT INTO "
              + e
              + " (queue, message_key, seq, attempt, lease_number, failed_at, error_class, message,"
              + " trace) SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ? FROM "
              + e
              + " WHERE queue = ? AND message_key = ? RETURNING seq";
      trim = "DELETE FROM " + e + " WHERE queue = ? AND message_key = ? AND seq <= ?";
      list =
          "SELECT attempt, lease_number, failed_at, error_class, message, trace FROM "
              + e
              + " WHERE queue = ? AND message_key = ? ORDER BY seq";
      forget =
          "DELETE FROM "
              + e
              + " WHERE queue = ? AND message_key = ? AND NOT EXISTS (SELECT 1 FROM "
              + p
              + "dead_letters d WHERE d.queue = ? AND d.message_key = ?)";
      StatementCache.registerFields(this, MethodHandles.lookup());
    }
  }

  /**
   * A failure as recorded: the text the message's last error holds, and its entry's class, message
   * and trace, each bounded.
   *
   * @param text the last error's text
   * @param errorClass the exception's class name, or null
   * @param message the entry's message
   * @param trace the first lines of the stack trace, or null
   */
  record Failure(String text, String errorClass, String message, String trace) {
    /** A failure given as text: its entry has no class and no trace. */
    static Failure of(String error) {
      String text = QueueDeadLetters.bound(error);
      return new Failure(text, null, text, null);
    }

    /** A failure given as an exception. */
    static Failure of(Throwable error) {
      String name = error.getClass().getName();
      return new Failure(
          QueueDeadLetters.bound(name + ": " + error.getMessage()),
          QueueDeadLetters.bound(name),
          QueueDeadLetters.bound(error.getMessage() == null ? "(no message)" : error.getMessage()),
          AttemptErrorLog.trace(error));
    }
  }

  /**
   * The first {@value AttemptError#MAX_TRACE_LINES} lines of a stack trace, as {@link
   * Throwable#printStackTrace()} writes them without its first line (the class and message, kept
   * apart), then each later cause's {@code Caused by:} line, cut to {@value
   * AttemptError#MAX_TRACE_CHARS} characters.
   */
  static String trace(Throwable error) {
    List<String> lines = new ArrayList<>();
    frames(error, lines);
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    seen.add(error);
    for (Throwable c = error.getCause(); c != null && seen.add(c); c = c.getCause()) {
      if (seen.size() > MAX_CAUSES + 1) {
        break;
      }
      lines.add("Caused by: " + c.getClass().getName() + ": " + c.getMessage());
      frames(c, lines);
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < lines.size(); i++) {
      if (i < AttemptError.MAX_TRACE_LINES || lines.get(i).startsWith("Caused by: ")) {
        out.append(out.length() == 0 ? "" : "\n").append(lines.get(i));
      }
    }
    return SqlRejectionStore.cut(out.toString(), AttemptError.MAX_TRACE_CHARS);
  }

  private static void frames(Throwable error, List<String> lines) {
    for (StackTraceElement frame : error.getStackTrace()) {
      lines.add("\tat " + frame);
    }
  }

  /**
   * Adds the entry of a failed attempt of the message {@code lease} holds, in the caller's
   * transaction, and deletes the entries of its key beyond the newest {@code kept}.
   */
  void record(Connection c, Lease lease, int attempt, Failure f, long at) throws SQLException {
    if (kept == 0) {
      return;
    }
    int seq;
    try (PreparedStatement ps = c.prepareStatement(sql.insert)) {
      ps.setString(1, lease.queue());
      ps.setString(2, lease.key());
      ps.setInt(3, attempt);
      ps.setLong(4, lease.fence());
      times.set(ps, 5, at);
      ps.setString(6, f.errorClass());
      ps.setString(7, f.message());
      ps.setString(8, f.trace());
      ps.setString(9, lease.queue());
      ps.setString(10, lease.key());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        seq = rs.getInt(1);
      }
    }
    if (seq > kept) {
      try (PreparedStatement ps = c.prepareStatement(sql.trim)) {
        ps.setString(1, lease.queue());
        ps.setString(2, lease.key());
        ps.setInt(3, seq - kept);
        ps.executeUpdate();
      }
    }
  }

  /**
   * Deletes the entries of a key whose message is gone (completed or withdrawn), unless a dead
   * letter of the key keeps them.
   */
  void forget(Connection c, String queue, String key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.forget)) {
      ps.setString(1, queue);
      ps.setString(2, key);
      ps.setString(3, queue);
      ps.setString(4, key);
      ps.executeUpdate();
    }
  }

  /** Reads the entries of a key, oldest first. */
  List<AttemptError> list(String queue, String key) {
    return core.database()
        .read(
            c -> {
              List<AttemptError> out = new ArrayList<>();
              try (PreparedStatement ps = c.prepareStatement(sql.list)) {
                ps.setString(1, queue);
                ps.setString(2, key);
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    out.add(
                        new AttemptError(
                            rs.getInt(1),
                            rs.getLong(2),
                            times.instant(rs, 3),
                            Optional.ofNullable(rs.getString(4)),
                            rs.getString(5),
                            Optional.ofNullable(rs.getString(6))));
                  }
                }
              }
              return List.copyOf(out);
            });
  }
}
