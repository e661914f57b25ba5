package dev.onceonly.internal.db;

import java.util.Locale;
import java.util.Set;

/**
 * Finds, in SQL text an effect wants to run, a statement that would end or nest the library's
 * transaction or change the connection's session: the first word of every statement in the text
 * (after leading whitespace, {@code --} and {@code /* *}{@code /} comments, and parentheses), with
 * quoted strings, quoted identifiers and PostgreSQL dollar-quoted bodies skipped, so that {@code
 * "INSERT ...; COMMIT"} is caught and {@code 'COMMIT'} inside a literal is not.
 *
 * <p>What it cannot see: a function that changes the session ({@code SELECT set_config(..., false)}
 * on PostgreSQL, a user-defined SQLite function), a procedure or {@code DO} block (PostgreSQL
 * refuses transaction control in those inside a transaction block anyway). A SQLite {@code CREATE
 * TRIGGER} whose body holds several statements is refused, because its {@code END} reads as one.
 */
final class SqlGuard {
  private SqlGuard() {}

  /**
   * Statement keywords refused in an effect, on both dialects: transaction control (SQLite and
   * PostgreSQL spellings), SQLite's connection-level statements, and PostgreSQL's session state,
   * which would outlive the step on a pooled connection.
   */
  private static final Set<String> REFUSED =
      Set.of(
          "BEGIN",
          "START",
          "COMMIT",
          "END",
          "ROLLBACK",
          "ABORT",
          "SAVEPOINT",
          "RELEASE",
          "PREPARE",
          "ATTACH",
          "DETACH",
          "PRAGMA",
          "VACUUM",
          "SET",
          "RESET",
          "LISTEN",
          "UNLISTEN",
          "DISCARD",
          "DEALLOCATE",
          "LOAD");

  /**
   * Returns the refused keyword (upper case) of the first refused statement in {@code sql}, or
   * null. {@code SET LOCAL}, {@code SET CONSTRAINTS} and {@code SET TRANSACTION} end with the
   * transaction and are allowed.
   */
  static String refused(String sql) {
    if (sql == null) {
      return null;
    }
    int n = sql.length();
    int i = 0;
    while (i < n) {
      i = skipSpace(sql, i);
      int start = i;
      while (i < n && Character.isLetter(sql.charAt(i))) {
        i++;
      }
      if (i > start) {
        String word = sql.substring(start, i).toUpperCase(Locale.ROOT);
        if (REFUSED.contains(word) && !(word.equals("SET") && transactionScoped(sql, i))) {
          return word;
        }
      }
      i = endOfStatement(sql, i);
    }
    return null;
  }

  private static boolean transactionScoped(String sql, int from) {
    int i = skipSpace(sql, from);
    int start = i;
    while (i < sql.length() && Character.isLetter(sql.charAt(i))) {
      i++;
    }
    String next = sql.substring(start, i).toUpperCase(Locale.ROOT);
    return next.equals("LOCAL") || next.equals("CONSTRAINTS") || next.equals("TRANSACTION");
  }

  /** Skips whitespace, comments and opening parentheses or braces. */
  private static int skipSpace(String sql, int i) {
    int n = sql.length();
    while (i < n) {
      char ch = sql.charAt(i);
      if (Character.isWhitespace(ch) || ch == '(' || ch == '{') {
        i++;
      } else if (sql.startsWith("--", i)) {
        int eol = sql.indexOf('\n', i);
        i = eol < 0 ? n : eol + 1;
      } else if (sql.startsWith("/*", i)) {
        i = endOfBlockComment(sql, i);
      } else {
        break;
      }
    }
    return i;
  }

  /** PostgreSQL nests block comments; SQLite does not, and the difference only matters oddly. */
  private static int endOfBlockComment(String sql, int i) {
    int depth = 0;
    int n = sql.length();
    while (i < n) {
      if (sql.startsWith("/*", i)) {
        depth++;
        i += 2;
      } else if (sql.startsWith("*/", i)) {
        depth--;
        i += 2;
        if (depth == 0) {
          return i;
        }
      } else {
        i++;
      }
    }
    return n;
  }

  /** Returns the index just past the {@code ;} that ends the statement at {@code i}, or the end. */
  private static int endOfStatement(String sql, int i) {
    int n = sql.length();
    while (i < n) {
      char ch = sql.charAt(i);
      if (ch == ';') {
        return i + 1;
      } else if (ch == '\'' || ch == '"' || ch == '`') {
        i = endOfQuoted(sql, i, ch, ch == '\'' && escapes(sql, i));
      } else if (ch == '[') {
        int close = sql.indexOf(']', i + 1);
        i = close < 0 ? n : close + 1;
      } else if (sql.startsWith("--", i) || sql.startsWith("/*", i)) {
        i = skipSpace(sql, i);
      } else if (ch == '$') {
        i = endOfDollarQuoted(sql, i);
      } else {
        i++;
      }
    }
    return n;
  }

  /** PostgreSQL's {@code E'...'} strings take backslash escapes. */
  private static boolean escapes(String sql, int quote) {
    if (quote == 0) {
      return false;
    }
    char before = sql.charAt(quote - 1);
    boolean startOfWord = quote < 2 || !Character.isLetterOrDigit(sql.charAt(quote - 2));
    return (before == 'E' || before == 'e') && startOfWord;
  }

  private static int endOfQuoted(String sql, int i, char quote, boolean backslash) {
    int n = sql.length();
    i++;
    while (i < n) {
      char ch = sql.charAt(i);
      if (backslash && ch == '\\') {
        i += 2;
      } else if (ch == quote) {
        if (i + 1 < n && sql.charAt(i + 1) == quote) {
          i += 2; // a doubled quote stands for itself
        } else {
          return i + 1;
        }
      } else {
        i++;
      }
    }
    return n;
  }

  /**
   * Skips {@code $tag$ ... $tag$}; a {@code $} that opens no tag (a parameter {@code $1}) is one
   * character.
   */
  private static int endOfDollarQuoted(String sql, int i) {
    int n = sql.length();
    int j = i + 1;
    while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
      j++;
    }
    if (j >= n || sql.charAt(j) != '$' || (j > i + 1 && Character.isDigit(sql.charAt(i + 1)))) {
      return i + 1;
    }
    String tag = sql.substring(i, j + 1);
    int close = sql.indexOf(tag, j + 1);
    return close < 0 ? n : close + tag.length();
  }
}
