package dev.onceonly.cli;

/**
 * A failure the command-line tool reports as one line on stderr, with its own exit status and no
 * stack trace.
 */
final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Exit status of a command that ran but found a failed check (the demo's FAILED). */
  static final int FAILED = 1;

  /** Exit status of a usage error (picocli uses the same). */
  static final int USAGE = 2;

  /** Exit status when the database file, receipt or dead letter asked for does not exist. */
  static final int NOT_FOUND = 3;

  /** Exit status when the database cannot be reached: no driver, a wrong URL, refused. */
  static final int UNREACHABLE = 4;

  /** Exit status when the schema is missing, older (not migrated) or newer than this tool. */
  static final int SCHEMA = 5;

  /** Exit status when the store or the database failed while the command ran. */
  static final int STORE = 6;

  private final int exitCode;

  CliException(int exitCode, String message) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
