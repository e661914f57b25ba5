package dev.onceonly.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on a free loopback port to a port of this machine, which a test can {@link #cut}: the
 * connections through it are reset and new ones closed as soon as they are accepted, until {@link
 * #heal}. A network partition between one client and its server, without root or namespaces.
 */
public final class TcpRelay implements AutoCloseable {
  private final ServerSocket listener;
  private final int target;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;
  private volatile byte[] loseAnswerTo;
  private volatile Socket answerLostOn;

  private TcpRelay(ServerSocket listener, int target) {
    this.listener = listener;
    this.target = target;
  }

  /** Starts a relay to {@code 127.0.0.1:target}. */
  public static TcpRelay to(int target) {
    try {
      TcpRelay relay =
          new TcpRelay(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), target);
      Thread t = new Thread(relay::accept, "relay-" + target);
      t.setDaemon(true);
      t.start();
      return relay;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a relay", e);
    }
  }

  /** {@return the port clients connect to} */
  public int port() {
    return listener.getLocalPort();
  }

  /** Resets every connection through the relay and closes new ones at once. */
  public void cut() {
    cut = true;
    open.forEach(TcpRelay::quietly);
    open.clear();
  }

  /**
   * Arms a one-time fault: the next time a client sends bytes holding {@code marker} (a statement's
   * text, such as {@code COMMIT}), they reach the server, and the server's answer is dropped and
   * that connection reset, as when a link breaks after the request went out. The text must be on
   * the wire: pgjdbc sends a statement it prepared before by name only, so its URL needs {@code
   * prepareThreshold=0}.
   */
  public void loseAnswerTo(String marker) {
    answerLostOn = null;
    loseAnswerTo = marker.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  /** {@return whether the armed answer was dropped} */
  public boolean answerLost() {
    return loseAnswerTo == null && answerLostOn != null;
  }

  /** Relays new connections again. */
  public void heal() {
    cut = false;
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        if (cut) {
          quietly(client);
          continue;
        }
        Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
        open.add(client);
        open.add(server);
        pump(client, server, true);
        pump(server, client, false);
      } catch (IOException e) {
        // closed, or the target refused: the client sees its connection end
      }
    }
  }

  private void pump(Socket from, Socket to, boolean fromClient) {
    Thread t =
        new Thread(
            () -> {
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                byte[] buffer = new byte[65536];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                  if (!fromClient && answerLostOn == from) {
                    loseAnswerTo = null; // the server answered: drop it and break the link
                    break;
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                  byte[] marker = loseAnswerTo;
                  if (fromClient
                      && marker != null
                      && answerLostOn == null
                      && holds(buffer, n, marker)) {
                    answerLostOn = to;
                  }
                }
              } catch (IOException e) {
                // one side ended
              } finally {
                quietly(from);
                quietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "relay-pump");
    t.setDaemon(true);
    t.start();
  }

  private static boolean holds(byte[] buffer, int n, byte[] marker) {
    outer:
    for (int i = 0; i + marker.length <= n; i++) {
      for (int j = 0; j < marker.length; j++) {
        if (buffer[i + j] != marker[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static void quietly(Socket s) {
    try {
      s.setSoLinger(true, 0); // a reset, as a broken link ends a connection
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    cut();
    try {
      listener.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
