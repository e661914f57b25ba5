package dev.onceonly;

import java.util.Objects;

/**
 * A request was refused before anything was written: a scope or key outside the configured alphabet
 * or length, or arguments an operation's validator does not accept. Payloads that are not I-JSON
 * raise {@link CanonicalizationException} instead.
 */
public final class InvalidRequestException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  /** The field that was refused. */
  private final String field;

  /**
   * Creates the exception.
   *
   * @param field the refused field, for example {@code "scope"}, {@code "key"} or {@code
   *     "arguments"}
   * @param reason why, for a person
   */
  public InvalidRequestException(String field, String reason) {
    super(Objects.requireNonNull(field, "field") + ": " + reason, null);
    this.field = field;
  }

  /** {@return the refused field} */
  public String field() {
    return field;
  }
}
