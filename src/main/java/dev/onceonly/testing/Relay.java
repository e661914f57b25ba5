package dev.onceonly.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on a free loopback port to a server, which can reset every connection through it
 * ({@link #cut}) or drop the server's answer to a request and then reset that connection ({@link
 * #loseAnswerTo}): a broken link, without root or network namespaces. Plain bytes in both
 * directions, so TLS passes through (host-name verification then sees the loopback address). A
 * {@link FaultRun}'s child JVM puts its connections through one; no library does this in process
 * (Toxiproxy is a server of its own), hence these hundred lines.
 */
final class Relay implements AutoCloseable {
  private final ServerSocket listener;
  private final String host;
  private final int target;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;
  private volatile byte[] loseAnswerTo;
  private volatile Socket answerLostOn;

  private Relay(ServerSocket listener, String host, int target) {
    this.listener = listener;
    this.host = host;
    this.target = target;
  }

  /** Starts a relay to {@code host:target}. */
  static Relay to(String host, int target) {
    try {
      Relay relay =
          new Relay(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), host, target);
      Thread t = new Thread(relay::accept, "relay-" + target);
      t.setDaemon(true);
      t.start();
      return relay;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open a relay", e);
    }
  }

  /** {@return the loopback port clients connect to} */
  int port() {
    return listener.getLocalPort();
  }

  /** Resets every connection through the relay, and closes new ones at once until {@link #heal}. */
  void cut() {
    cut = true;
    open.forEach(Relay::quietly);
    open.clear();
  }

  /** Relays new connections again. */
  void heal() {
    cut = false;
  }

  /**
   * Arms a one-time fault: the next time a client sends bytes holding {@code marker} (empty: any
   * bytes), they reach the server, and the server's answer is dropped and that connection reset, as
   * when a link breaks after the request went out.
   */
  void loseAnswerTo(String marker) {
    answerLostOn = null;
    loseAnswerTo = marker.getBytes(StandardCharsets.US_ASCII);
  }

  /** {@return whether the armed answer was dropped} */
  boolean answerLost() {
    return loseAnswerTo == null && answerLostOn != null;
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        if (cut) {
          quietly(client);
          continue;
        }
        Socket server = new Socket(host, target);
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
                  // Armed before the bytes go on: a server quicker than this thread must not
                  // get its answer through before the pump that drops it knows to.
                  byte[] marker = loseAnswerTo;
                  if (fromClient
                      && marker != null
                      && answerLostOn == null
                      && holds(buffer, n, marker)) {
                    answerLostOn = to;
                  }
                  out.write(buffer, 0, n);
                  out.flush();
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
