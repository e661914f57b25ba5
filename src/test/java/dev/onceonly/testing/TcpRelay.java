package dev.onceonly.testing;

/**
 * A TCP relay on a free loopback port to a port of this machine, which a test can {@link #cut}: the
 * connections through it are reset and new ones closed as soon as they are accepted, until {@link
 * #heal}. A network partition between one client and its server, without root or namespaces. The
 * tests' face of the fault kit's relay ({@code Relay}), which a {@link FaultRun}'s child uses.
 */
public final class TcpRelay implements AutoCloseable {
  private final Relay relay;

  private TcpRelay(Relay relay) {
    this.relay = relay;
  }

  /** Starts a relay to {@code 127.0.0.1:target}. */
  public static TcpRelay to(int target) {
    return new TcpRelay(Relay.to("127.0.0.1", target));
  }

  /** {@return the port clients connect to} */
  public int port() {
    return relay.port();
  }

  /** Resets every connection through the relay and closes new ones at once. */
  public void cut() {
    relay.cut();
  }

  /**
   * Arms a one-time fault: the next time a client sends bytes holding {@code marker} (a statement's
   * text, such as {@code COMMIT}), they reach the server, and the server's answer is dropped and
   * that connection reset, as when a link breaks after the request went out. The text must be on
   * the wire: pgjdbc sends a statement it prepared before by name only, so its URL needs {@code
   * prepareThreshold=0}.
   */
  public void loseAnswerTo(String marker) {
    relay.loseAnswerTo(marker);
  }

  /** {@return whether the armed answer was dropped} */
  public boolean answerLost() {
    return relay.answerLost();
  }

  /** Relays new connections again. */
  public void heal() {
    relay.heal();
  }

  @Override
  public void close() {
    relay.close();
  }
}
