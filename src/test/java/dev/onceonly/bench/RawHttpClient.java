package dev.onceonly.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The load generator of {@link HttpBenchMain}: one keep-alive HTTP/1.1 connection per client
 * thread, a request written whole and its answer read whole before the next, as wrk or h2load drive
 * a server. Not a general client: it sends the bench's one POST and understands {@code
 * Content-Length}, {@code chunked} and {@code Connection: close}.
 *
 * <p>Why not a library's client: on two cores the client shares the CPU with the server it
 * measures. {@code java.net.http.HttpClient} spends its time in its selector thread, futures and
 * header maps, so the fast answers (a replay, a bare endpoint without a commit) measured the
 * client's cost rather than the server's; this loop costs a write and a read per request.
 */
final class RawHttpClient implements AutoCloseable {
  private final String host;
  private final int port;
  private Socket socket;
  private InputStream in;
  private OutputStream out;
  private final StringBuilder line = new StringBuilder(128);

  RawHttpClient(String host, int port) {
    this.host = host;
    this.port = port;
  }

  /**
   * POSTs {@code body} to {@code path} with {@code headers} (name, value, name, value...), reads
   * the answer and returns its status. A connection the server closed before answering is opened
   * anew and the request sent once more; {@code resent} then says so.
   */
  int post(String path, byte[] body, Runnable resent, String... headers) throws IOException {
    byte[] request = request(path, body, headers);
    if (socket == null) {
      connect();
    }
    try {
      return exchange(request);
    } catch (EOFException | java.net.SocketException e) {
      // The server closed an idle keep-alive connection before answering this request.
      close();
      connect();
      resent.run();
      return exchange(request);
    }
  }

  private byte[] request(String path, byte[] body, String... headers) {
    StringBuilder h = new StringBuilder(256);
    h.append("POST ").append(path).append(" HTTP/1.1\r\nHost: ").append(host).append(':');
    h.append(port).append("\r\n");
    for (int i = 0; i < headers.length; i += 2) {
      h.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    h.append("Content-Length: ").append(body.length).append("\r\n\r\n");
    byte[] head = h.toString().getBytes(StandardCharsets.ISO_8859_1);
    byte[] all = new byte[head.length + body.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(body, 0, all, head.length, body.length);
    return all;
  }

  private void connect() throws IOException {
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.connect(new InetSocketAddress(host, port));
    in = new BufferedInputStream(socket.getInputStream(), 8192);
    out = new BufferedOutputStream(socket.getOutputStream(), 8192);
  }

  private int exchange(byte[] request) throws IOException {
    out.write(request);
    out.flush();
    String status = readLine();
    if (status == null) {
      throw new EOFException("closed before the status line");
    }
    int code = Integer.parseInt(status.substring(9, 12));
    long length = -1;
    boolean chunked = false;
    boolean close = false;
    for (String h = readLine(); h != null && !h.isEmpty(); h = readLine()) {
      int colon = h.indexOf(':');
      String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = h.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> length = Long.parseLong(value);
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        case "connection" -> close = value.equalsIgnoreCase("close");
        default -> {}
      }
    }
    if (chunked) {
      for (long size = chunkSize(); size > 0; size = chunkSize()) {
        skip(size);
        readLine();
      }
      while (!readLine().isEmpty()) {
        // trailers
      }
    } else if (length > 0) {
      skip(length);
    } else if (length < 0) {
      throw new IOException("an answer without Content-Length or chunked: " + status);
    }
    if (close) {
      close();
    }
    return code;
  }

  private long chunkSize() throws IOException {
    String s = readLine();
    int semi = s.indexOf(';');
    return Long.parseLong((semi < 0 ? s : s.substring(0, semi)).trim(), 16);
  }

  private void skip(long n) throws IOException {
    long left = n;
    while (left > 0) {
      long k = in.skip(left);
      if (k <= 0) {
        if (in.read() < 0) {
          throw new EOFException("closed inside a body");
        }
        k = 1;
      }
      left -= k;
    }
  }

  /** A line without its CRLF, or null at the end of the stream before any byte of it. */
  private String readLine() throws IOException {
    line.setLength(0);
    int b;
    while ((b = in.read()) >= 0) {
      if (b == '\n') {
        int end = line.length();
        if (end > 0 && line.charAt(end - 1) == '\r') {
          line.setLength(end - 1);
        }
        return line.toString();
      }
      line.append((char) b);
    }
    if (line.length() == 0) {
      return null;
    }
    throw new EOFException("closed inside a line");
  }

  @Override
  public void close() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing after the bench; nothing to keep
      }
      socket = null;
    }
  }
}
