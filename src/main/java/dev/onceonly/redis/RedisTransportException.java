package dev.onceonly.redis;

import dev.onceonly.OnceOnlyException;

/**
 * Redis could not be reached or refused a command. For a publication it means the outcome is
 * unknown: the entry may or may not have been added. Publishing the same intent again is safe,
 * since the receiver recognises a repetition.
 */
public final class RedisTransportException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what failed, for a person
   * @param cause the client's exception
   */
  public RedisTransportException(String message, Throwable cause) {
    super(message + (cause == null ? "" : ": " + cause.getMessage()), cause);
  }
}
