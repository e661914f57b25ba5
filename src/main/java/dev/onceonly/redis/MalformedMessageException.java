package dev.onceonly.redis;

import dev.onceonly.OnceOnlyException;
import java.util.Objects;

/**
 * A stream entry is not a message this transport wrote: the {@link MessageDecoder} refused it
 * before anything was applied. The worker keeps such an entry as a rejection and acknowledges it.
 */
public final class MalformedMessageException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  /** What is wrong with the entry. */
  public enum Problem {
    /** The entry's fields and values do not come in pairs. */
    NOT_PAIRED,
    /** The entry is larger than the decoder accepts. */
    TOO_LARGE,
    /** A field name or value is not valid UTF-8. */
    NOT_UTF8,
    /** A required field is missing. */
    MISSING_FIELD,
    /** A field this transport never writes is present. */
    UNKNOWN_FIELD,
    /** A field appears twice. */
    DUPLICATE_FIELD,
    /** The arguments are not I-JSON, or too large or too deep for the canonicalizer. */
    BAD_ARGUMENTS
  }

  /** What is wrong with the entry. */
  private final Problem problem;

  /**
   * Creates the exception.
   *
   * @param problem what is wrong
   * @param detail a description for a person
   */
  public MalformedMessageException(Problem problem, String detail) {
    super(Objects.requireNonNull(problem, "problem") + ": " + detail, null);
    this.problem = problem;
  }

  /** {@return what is wrong with the entry} */
  public Problem problem() {
    return problem;
  }
}
