package dev.onceonly;

/**
 * The server a store writes to may lose commits it has answered, and the store was built to refuse
 * that ({@link OnceOnlyBuilder#requireSynchronousReplication}). Nothing was written; the message
 * names the settings read and what may be lost.
 */
public class DurabilityException extends OnceOnlyException {
  private static final long serialVersionUID = 1L;

  /** What was read; not serialized. */
  private final transient Durability durability;

  /**
   * Creates the exception.
   *
   * @param message what is missing and what to do, for a person
   * @param durability what was read from the server
   */
  public DurabilityException(String message, Durability durability) {
    super(message, null);
    this.durability = durability;
  }

  /** {@return what was read from the server, or {@code null} after deserialization} */
  public Durability durability() {
    return durability;
  }
}
