package dev.onceonly.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * The filter's own answers, as RFC 9457 problem details ({@code application/problem+json}), each
 * with a {@code type} that links to its section of docs/http.md.
 */
enum Problem {
  KEY_MISSING("key-missing", 400, "Idempotency-Key missing"),
  KEY_MALFORMED("key-malformed", 400, "Idempotency-Key malformed"),
  SCOPE_MISSING("scope-missing", 401, "No scope for the Idempotency-Key"),
  REQUEST_TOO_LARGE("request-too-large", 413, "Request body too large for an idempotent request"),
  KEY_REUSED("key-reused", 422, "Idempotency-Key reused for another request"),
  KEY_EXPIRED("key-expired", 422, "Idempotency-Key expired"),
  IN_PROGRESS("in-progress", 409, "A request with this Idempotency-Key is in progress"),
  OUTCOME_UNKNOWN("outcome-unknown", 409, "Outcome unknown for this Idempotency-Key"),
  CLOSED("key-closed", 409, "Idempotency-Key closed"),
  RESPONSE_NOT_STORED("response-not-stored", 500, "Response could not be stored");

  private static final ObjectMapper JSON = new ObjectMapper();

  final String slug;
  final int status;
  final String title;

  Problem(String slug, int status, String title) {
    this.slug = slug;
    this.status = status;
    this.title = title;
  }

  /** Writes this problem with {@code status} (this problem's unless overridden) and detail. */
  void send(HttpServletResponse res, String typeBase, int status, String detail)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("type", typeBase + slug);
    body.put("title", title);
    body.put("status", status);
    body.put("detail", detail);
    byte[] bytes = JSON.writeValueAsBytes(body);
    res.setStatus(status);
    res.setContentType("application/problem+json");
    res.setContentLength(bytes.length);
    res.getOutputStream().write(bytes);
  }

  void send(HttpServletResponse res, String typeBase, String detail) throws IOException {
    send(res, typeBase, status, detail);
  }
}
