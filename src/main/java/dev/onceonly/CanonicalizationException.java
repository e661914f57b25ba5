package dev.onceonly;

import java.util.Objects;

/**
 * Thrown when input cannot be brought into RFC 8785 canonical form: it is not I-JSON, or it exceeds
 * a configured limit. Nothing derived from such input is ever stored.
 */
public final class CanonicalizationException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  /** What was wrong with the input. */
  public enum Problem {
    /** No JSON value at all: empty or whitespace-only input. */
    EMPTY,
    /** Not JSON text (a bad token, an unclosed structure, NaN or Infinity literals). */
    SYNTAX,
    /** A complete JSON value followed by more non-whitespace input. */
    TRAILING_DATA,
    /** The same member name twice in one object (RFC 7493 section 2.3). */
    DUPLICATE_NAME,
    /** An unpaired or reversed UTF-16 surrogate in a string (RFC 7493 section 2.1). */
    LONE_SURROGATE,
    /** Bytes that are not well-formed UTF-8 (RFC 8785 section 3.2.4 requires UTF-8). */
    INVALID_UTF8,
    /** A number that is NaN, infinite, or outside the IEEE 754 double range. */
    NUMBER_OUT_OF_RANGE,
    /** Input (or canonical output) larger than the configured maximum bytes. */
    TOO_LARGE,
    /** Arrays and objects nested deeper than the configured maximum. */
    TOO_DEEP,
    /** A string or member name longer than the configured maximum. */
    STRING_TOO_LONG,
    /** A tree node that has no JSON equivalent (binary or arbitrary Java objects). */
    UNSUPPORTED_VALUE
  }

  /** What is wrong with the input. */
  private final Problem problem;

  /** Where the problem was found, or an empty string for the whole input. */
  private final String position;

  /**
   * Creates the exception.
   *
   * @param problem the kind of problem
   * @param detail a short description for a person
   * @param position where in the input it was found (for example {@code "line 1, column 9"} or a
   *     JSON Pointer such as {@code "/a/0"}); empty when the input as a whole is at fault
   */
  public CanonicalizationException(Problem problem, String detail, String position) {
    super(message(problem, detail, position), null);
    this.problem = Objects.requireNonNull(problem, "problem");
    this.position = Objects.requireNonNull(position, "position");
  }

  private static String message(Problem problem, String detail, String position) {
    String at = position == null || position.isEmpty() ? "" : " at " + position;
    return problem + ": " + detail + at;
  }

  /** {@return the kind of problem} */
  public Problem problem() {
    return problem;
  }

  /** {@return where the problem was found, or an empty string when it concerns the whole input} */
  public String position() {
    return position;
  }
}
