package dev.onceonly.http;

import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * A response as the filter stores it and replays it: the status, the allow-listed headers in order,
 * and the body's bytes in base64. It is the result of the request's receipt or claim; an operator
 * who settles an unknown outcome as done ({@code onceonly unknown resolve --done --result ...})
 * gives it in this JSON form.
 *
 * @param status the HTTP status, 100 to 599
 * @param headers the stored headers, in the order they were set
 * @param body the body, base64 (RFC 4648, with padding)
 */
public record StoredResponse(int status, List<Header> headers, String body) {
  /**
   * Checks the status and copies the headers.
   *
   * @param status the HTTP status, 100 to 599
   * @param headers the stored headers, in the order they were set
   * @param body the body, base64 (RFC 4648, with padding)
   * @throws IllegalArgumentException if the status is out of range
   */
  public StoredResponse {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("status must be from 100 to 599, was " + status);
    }
    headers = List.copyOf(headers == null ? List.of() : headers);
    body = body == null ? "" : body;
  }

  /** {@return the body's bytes} */
  public byte[] bodyBytes() {
    return Base64.getDecoder().decode(body);
  }

  /**
   * One stored header line.
   *
   * @param name the header's name as the handler set it
   * @param value its value
   */
  public record Header(String name, String value) {
    /**
     * Refuses nulls.
     *
     * @param name the header's name as the handler set it
     * @param value its value
     */
    public Header {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(value, "value");
    }
  }
}
