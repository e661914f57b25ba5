package dev.onceonly.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.CanonicalizationException;
import dev.onceonly.Canonicalizer;
import dev.onceonly.Fingerprint;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.Collections;
import java.util.Locale;

/**
 * What the fingerprint of a guarded request covers: the method, the dispatched path ({@link
 * DispatchedPath}), the raw query, the body's digest and the route's fingerprint headers.
 *
 * <p>A JSON body counts by its RFC 8785 form, so that a retry's whitespace and member order do not
 * matter, but only when that form keeps every number's value: the canonical form writes a number as
 * the double nearest to it, and {@code 9007199254740993} and {@code 9007199254740992}, or {@code
 * 0.30000000000000001} and {@code 0.3}, would come out the same. A body with a number the double
 * does not keep, and any other body, counts by its bytes.
 */
final class RequestFingerprint {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonFactory NUMBERS = new JsonFactory();
  private static final Canonicalizer FINGERPRINTS = Canonicalizer.defaults();
  private static final BigDecimal EXACT_LONGS = BigDecimal.valueOf(1L << 53);

  private final Canonicalizer canonicalizer;

  RequestFingerprint(int maxRequestBytes) {
    canonicalizer = Canonicalizer.builder().maxInputBytes(Math.max(1, maxRequestBytes)).build();
  }

  /** {@return the fingerprint's input for a request to {@code path} with {@code body}} */
  ObjectNode arguments(Route route, HttpServletRequest req, String path, byte[] body) {
    ObjectNode args = JSON.createObjectNode();
    args.put("method", req.getMethod());
    args.put("path", path);
    String query = req.getQueryString();
    args.put("query", query == null ? "" : query);
    args.put("body", bodyDigest(req.getContentType(), body));
    if (!route.fingerprintHeaders().isEmpty()) {
      ObjectNode headers = args.putObject("headers");
      for (String name : route.fingerprintHeaders()) {
        ArrayNode list = headers.putArray(name);
        Collections.list(req.getHeaders(name)).forEach(list::add);
      }
    }
    return args;
  }

  /** Whether a stored intent is this request: same operation, same fingerprint. */
  static boolean sameRequest(
      Route route, ObjectNode arguments, String operation, Fingerprint fingerprint) {
    return route.operation().equals(operation)
        && FINGERPRINTS.fingerprint(route.operation(), arguments).equals(fingerprint);
  }

  private String bodyDigest(String contentType, byte[] body) {
    if (isJson(contentType) && body.length > 0) {
      try {
        byte[] canonical = canonicalizer.canonicalize(body);
        if (numbersKept(body)) {
          return "jcs:" + KeyHeader.sha256Hex(canonical);
        }
      } catch (CanonicalizationException e) {
        // not I-JSON after all: the bytes are the request
      }
    }
    return "bytes:" + KeyHeader.sha256Hex(body);
  }

  /**
   * Whether every number of a JSON text is the value its canonical form writes: the ECMAScript form
   * of the nearest double, read back as a decimal, equals the number as written.
   */
  static boolean numbersKept(byte[] json) {
    try (JsonParser parser = NUMBERS.createParser(json)) {
      for (JsonToken t = parser.nextToken(); t != null; t = parser.nextToken()) {
        if (t == JsonToken.VALUE_NUMBER_INT
            && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER
            && Math.abs(parser.getLongValue()) <= 1L << 53) {
          continue; // every integer up to 2^53 is a double
        }
        if ((t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT)
            && !kept(parser.getText(), parser.getDecimalValue())) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean kept(String text, BigDecimal value) {
    if (value.abs().compareTo(EXACT_LONGS) <= 0 && value.stripTrailingZeros().scale() <= 0) {
      return true;
    }
    try {
      return new BigDecimal(FINGERPRINTS.canonicalString(text)).compareTo(value) == 0;
    } catch (CanonicalizationException e) {
      return false; // out of a double's range
    }
  }

  private static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semicolon = contentType.indexOf(';');
    String type =
        (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
            .trim()
            .toLowerCase(Locale.ROOT);
    return type.equals("application/json") || type.endsWith("+json");
  }
}
