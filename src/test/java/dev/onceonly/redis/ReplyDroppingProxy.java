package dev.onceonly.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy in front of Redis that can lose a reply: after {@link #dropNextReply()}, the next
 * bytes Redis sends back are not forwarded and the client's connection is closed. The command was
 * executed; only its reply is lost, as when a network fails at the worst moment.
 */
final class ReplyDroppingProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int target;
  private final AtomicBoolean dropNext = new AtomicBoolean();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  private ReplyDroppingProxy(ServerSocket server, int target) {
    this.server = server;
    this.target = target;
  }

  static ReplyDroppingProxy start(int redisPort) {
    try {
      ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      ReplyDroppingProxy proxy = new ReplyDroppingProxy(server, redisPort);
      Thread accept = new Thread(proxy::accept, "proxy-accept");
      accept.setDaemon(true);
      accept.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  int port() {
    return server.getLocalPort();
  }

  /** Loses the next reply that Redis sends on any connection, closing that connection. */
  void dropNextReply() {
    dropNext.set(true);
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket redis = new Socket(InetAddress.getLoopbackAddress(), target);
        sockets.add(client);
        sockets.add(redis);
        pump(client, redis, false);
        pump(redis, client, true);
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void pump(Socket from, Socket to, boolean replies) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  if (replies && dropNext.compareAndSet(true, false)) {
                    break; // the reply is lost; both ends are closed below
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // the other pump closed the sockets
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() {
    closeQuietly(server);
    sockets.forEach(ReplyDroppingProxy::closeQuietly);
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // closing is best effort
    }
  }
}
