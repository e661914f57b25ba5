package dev.onceonly.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.IntentKey;
import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * The filter's answers that do not run the handler: replays of a stored response and the problems,
 * and the steps they count in {@code onceonly.receipts.outcomes}.
 */
final class Answers {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String problemTypeBase;
  private final Duration retention;
  private final InstantSource clock;
  private final long retryAfterSeconds;
  private final Events events;

  Answers(
      String problemTypeBase,
      Duration retention,
      InstantSource clock,
      long retryAfterSeconds,
      Events events) {
    this.problemTypeBase = problemTypeBase;
    this.retention = retention;
    this.clock = clock;
    this.retryAfterSeconds = retryAfterSeconds;
    this.events = events;
  }

  /** A stored result, read lazily: an operator's resolution may hold something else. */
  interface Stored {
    StoredResponse get();
  }

  /**
   * Publishes a guarded request's step as the receipts' steps are published ({@code created},
   * {@code repeated}, {@code conflict}, {@code expired}), for the answers the receipts did not give
   * themselves: every answer of the plain mode, the replays the filter read without a step.
   */
  void counted(String operation, IntentKey intent, String outcome, long startedNanos) {
    if (events.enabled()) {
      events.publish(
          new OnceOnlyEvent.StepFinished(
              operation,
              outcome,
              events.scope(intent.scope()),
              Duration.ofNanos(System.nanoTime() - startedNanos)));
    }
  }

  static StoredResponse read(String json) {
    try {
      return JSON.readValue(json, StoredResponse.class);
    } catch (IOException e) {
      throw new IllegalStateException("not a stored response", e);
    }
  }

  /**
   * Replays a stored response, or answers {@code key-expired} past the retention.
   *
   * @return the step's outcome: {@code repeated}, {@code expired}, or null when no response was
   *     stored
   */
  String replay(HttpServletResponse res, Instant storedAt, Stored stored) throws IOException {
    if (storedAt.plus(retention).isBefore(clock.instant())) {
      expired(res);
      return "expired";
    }
    StoredResponse response;
    try {
      response = stored.get();
    } catch (RuntimeException e) {
      Problem.RESPONSE_NOT_STORED.send(
          res, problemTypeBase, "the result stored for this key is not a response: " + e);
      return null;
    }
    if (response == null) {
      Problem.RESPONSE_NOT_STORED.send(res, problemTypeBase, "no response stored for this key");
      return null;
    }
    res.setStatus(response.status());
    for (StoredResponse.Header h : response.headers()) {
      if (h.name().equalsIgnoreCase("Content-Type")) {
        res.setContentType(h.value());
      } else {
        res.addHeader(h.name(), h.value());
      }
    }
    res.setHeader(IdempotencyFilter.REPLAYED_HEADER, "true");
    byte[] body = response.bodyBytes();
    res.setContentLength(body.length);
    res.getOutputStream().write(body);
    return "repeated";
  }

  void send(HttpServletResponse res, Problem problem, String detail) throws IOException {
    problem.send(res, problemTypeBase, detail);
  }

  void inProgress(HttpServletResponse res) throws IOException {
    res.setHeader("Retry-After", Long.toString(retryAfterSeconds));
    Problem.IN_PROGRESS.send(
        res,
        problemTypeBase,
        "a request with this key is still being handled; retry after " + retryAfterSeconds + " s");
  }

  void reused(HttpServletResponse res) throws IOException {
    Problem.KEY_REUSED.send(
        res,
        problemTypeBase,
        "this key was used for a request with another method, path, query or body");
  }

  void expired(HttpServletResponse res) throws IOException {
    Problem.KEY_EXPIRED.send(
        res,
        problemTypeBase,
        "the response stored for this key is past its retention; send the request under a new"
            + " key");
  }

  /**
   * Answers {@code problem} before the request's body was read, or all of it. On HTTP/1.1, when the
   * request has a body, it asks the client to close the connection: the server may drop such a
   * connection once the answer is written, without saying so, and a client that reused it would
   * find it closed before its next request's answer. {@code Connection} is a hop-by-hop header
   * HTTP/2 does not have.
   */
  void refuseUnread(
      HttpServletRequest req, HttpServletResponse res, Problem problem, int status, String detail)
      throws IOException {
    boolean body = req.getContentLengthLong() != 0 || req.getHeader("Transfer-Encoding") != null;
    if (body && req.getProtocol() != null && req.getProtocol().startsWith("HTTP/1")) {
      res.setHeader("Connection", "close");
    }
    problem.send(res, problemTypeBase, status, detail);
  }
}
