package dev.onceonly;

/**
 * The connection to the database was lost, or none could be had: the server crashed or shut down,
 * the network failed, a failover is under way, or the pool found no server to connect to in time.
 * Retryable: once the database answers again (after a failover, on its new primary), the same call
 * may simply be made again.
 *
 * <p>If {@link #commitUnknown()} is false the step never reached its commit and nothing of it was
 * written. If it is true the commit was sent and no answer came back: it may have committed. A
 * receipts step has then already looked its receipt up again (and answers {@code Repeated} when it
 * finds it); when the database could not be read either, calling the same step again is safe: it
 * takes the key's lock and looks the receipt up before it runs the effect, so the effect runs at
 * most once per key in the history the database keeps. Other writes (a send with no message key, an
 * acknowledgement) carry no receipt: for them a {@code commitUnknown} failure is an unknown
 * outcome.
 */
public class ConnectionLostException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Whether the commit was sent and got no answer. */
  private final boolean commitUnknown;

  /**
   * Creates the exception.
   *
   * @param message what failed, for a person
   * @param dialect the dialect's {@code id()}
   * @param cause the driver's exception
   * @param commitUnknown whether the commit was sent and got no answer
   */
  public ConnectionLostException(
      String message, String dialect, Throwable cause, boolean commitUnknown) {
    super(message, dialect, cause);
    this.commitUnknown = commitUnknown;
  }

  /** {@return whether the commit was sent and got no answer, so it may have committed} */
  public boolean commitUnknown() {
    return commitUnknown;
  }
}
