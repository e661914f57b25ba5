package dev.onceonly.http;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The handler's response, its body held back until the filter has stored it. Status and headers go
 * to the container's response (which stays uncommitted while nothing is written to it); the body
 * collects here up to a bound. Past the bound, or on {@code flushBuffer()} when {@code mayStream}
 * is set, the response streams: what was held is written, the rest goes straight through, and
 * nothing is stored.
 */
final class CapturedResponse extends HttpServletResponseWrapper {
  private final HttpServletResponse real;
  private final int maxBytes;
  private final boolean mayStream;
  private final ByteArrayOutputStream held = new ByteArrayOutputStream();
  private ServletOutputStream stream;
  private PrintWriter writer;
  private boolean streaming;
  private boolean tooLarge;

  CapturedResponse(HttpServletResponse real, int maxBytes, boolean mayStream) {
    super(real);
    this.real = real;
    this.maxBytes = maxBytes;
    this.mayStream = mayStream;
  }

  /** Whether the body went (partly) to the client already: it cannot be stored. */
  boolean streamed() {
    return streaming;
  }

  /** Whether the body grew past the bound. */
  boolean tooLarge() {
    return tooLarge;
  }

  @Override
  public ServletOutputStream getOutputStream() {
    if (writer != null) {
      throw new IllegalStateException("getWriter() was already called");
    }
    if (stream == null) {
      stream = new Sink();
    }
    return stream;
  }

  @Override
  public PrintWriter getWriter() {
    if (writer == null) {
      if (stream != null) {
        throw new IllegalStateException("getOutputStream() was already called");
      }
      String encoding = real.getCharacterEncoding();
      // Set explicitly so that the stored Content-Type names the charset the body is in.
      real.setCharacterEncoding(encoding);
      stream = new Sink();
      writer = new PrintWriter(new OutputStreamWriter(stream, Charset.forName(encoding)));
    }
    return writer;
  }

  @Override
  public void flushBuffer() throws IOException {
    if (writer != null) {
      writer.flush();
    }
    if (mayStream) {
      startStreaming();
      real.flushBuffer();
    }
  }

  @Override
  public boolean isCommitted() {
    return streaming && real.isCommitted();
  }

  @Override
  public void resetBuffer() {
    if (!streaming) {
      held.reset();
    }
    super.resetBuffer();
  }

  @Override
  public void reset() {
    if (!streaming) {
      held.reset();
    }
    super.reset();
  }

  @Override
  public void sendError(int sc) {
    setStatus(sc);
  }

  @Override
  public void sendError(int sc, String msg) {
    setStatus(sc);
  }

  @Override
  public void sendRedirect(String location) {
    setStatus(SC_FOUND);
    setHeader("Location", location);
  }

  /** Flushes the writer; after this, {@link #body()} holds everything the handler wrote. */
  void finish() {
    if (writer != null) {
      writer.flush();
    }
  }

  /** Switches to streaming: what was held goes out now, later writes go straight through. */
  void startStreaming() throws IOException {
    if (!streaming) {
      streaming = true;
      real.getOutputStream().write(held.toByteArray());
      held.reset();
    }
  }

  byte[] body() {
    return held.toByteArray();
  }

  /** The response as stored: status, the allow-listed headers, the body. */
  StoredResponse toStored(List<String> replayHeaders) {
    List<StoredResponse.Header> headers = new ArrayList<>();
    for (String name : replayHeaders) {
      if (name.equalsIgnoreCase("Content-Type")) {
        String type = real.getContentType();
        if (type != null) {
          headers.add(new StoredResponse.Header("Content-Type", type));
        }
        continue;
      }
      for (String value : real.getHeaders(name)) {
        headers.add(new StoredResponse.Header(name, value));
      }
    }
    return new StoredResponse(
        real.getStatus(), headers, Base64.getEncoder().encodeToString(held.toByteArray()));
  }

  /** Writes the held body to the client (nothing if it streamed). */
  void release() throws IOException {
    if (!streaming) {
      byte[] bytes = held.toByteArray();
      real.setContentLength(bytes.length);
      real.getOutputStream().write(bytes);
    }
  }

  private void write(byte[] b, int off, int len) throws IOException {
    if (streaming) {
      real.getOutputStream().write(b, off, len);
      return;
    }
    if (tooLarge) {
      return;
    }
    if ((long) held.size() + len > maxBytes) {
      tooLarge = true;
      if (mayStream) {
        startStreaming();
        real.getOutputStream().write(b, off, len);
        return;
      }
      return; // transactional mode: the filter rolls back and answers 500
    }
    held.write(b, off, len);
  }

  /** The body's sink. */
  private final class Sink extends ServletOutputStream {
    @Override
    public void write(int b) throws IOException {
      CapturedResponse.this.write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      CapturedResponse.this.write(b, off, len);
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setWriteListener(WriteListener listener) {
      throw new IllegalStateException("the filter holds the body; no asynchronous writes");
    }
  }
}
