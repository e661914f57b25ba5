package dev.onceonly.http;

import jakarta.servlet.http.HttpServletRequest;

/**
 * The path inside the application that the container dispatched a request to: what routes are
 * matched against and what the fingerprint covers.
 *
 * <p>It is the servlet path and the path info, which the container derives from the request URI
 * after decoding it, removing its path parameters ({@code ;v=1}) and resolving its dot segments.
 * The raw URI is not used: {@code /payments;v=1}, {@code /./payments}, {@code /x/../payments} and
 * {@code /%70ayments} reach the servlet mapped at {@code /payments} on Jetty and Tomcat alike, and
 * a route matched on the raw URI would let them through unguarded. Normalizing the raw URI here
 * instead would be a second opinion that can differ from the container's (empty segments, encoded
 * slashes, which parameters are removed): the container's answer is the one the handler sees.
 */
final class DispatchedPath {
  private DispatchedPath() {}

  /** {@return the decoded, normalized path inside the context, starting with {@code /}} */
  static String of(HttpServletRequest request) {
    String servletPath = request.getServletPath();
    String pathInfo = request.getPathInfo();
    String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
    return path.isEmpty() ? "/" : path;
  }
}
