package dev.onceonly.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.embedded.RedisServer;

/**
 * A real redis-server for tests, from the binaries bundled in {@code embedded-redis}: on a free
 * port, with its data in a folder of the test's, and the append-only file on and synced at every
 * write ({@code appendonly yes}, {@code appendfsync always}) so that a restart keeps every
 * acknowledged write, as {@code docs/redis.md} asks of production servers.
 */
public final class EmbeddedRedis implements AutoCloseable {
  private final RedisServer server;
  private final int port;

  private EmbeddedRedis(RedisServer server, int port) {
    this.server = server;
    this.port = port;
  }

  /** Starts a server whose files live in {@code dir}. */
  public static EmbeddedRedis start(Path dir) {
    int port = freePort();
    try {
      RedisServer server =
          RedisServer.newRedisServer()
              .port(port)
              .bind("127.0.0.1")
              .setting("dir " + dir.toAbsolutePath())
              .setting("appendonly yes")
              .setting("appendfsync always")
              .setting("save \"\"")
              .onShutdownForceStop(true)
              .build();
      server.start();
      return new EmbeddedRedis(server, port);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start redis-server on port " + port, e);
    }
  }

  public int port() {
    return port;
  }

  /** Returns a new pooled client; the caller closes it. */
  public RedisClient client() {
    return RedisClient.create("127.0.0.1", port);
  }

  /** Stops the server (its data stays in the append-only file). */
  void stop() {
    try {
      server.stop();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Kills the server with SIGKILL, as a crash would: no shutdown, no final write of its files; only
   * what {@code appendfsync always} put on disk survives.
   */
  void kill() {
    long pid;
    try (RedisClient c = client()) {
      String info = Replies.text(c.sendCommand(Protocol.Command.INFO, "server"));
      pid =
          info.lines()
              .filter(l -> l.startsWith("process_id:"))
              .map(l -> Long.parseLong(l.substring("process_id:".length()).trim()))
              .findFirst()
              .orElseThrow();
    }
    ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
    process.destroyForcibly();
    process.onExit().join();
    stop(); // the library's own bookkeeping; the process is already gone
  }

  /** Starts the server again on the same port, reloading the append-only file. */
  void restart() {
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    stop();
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
