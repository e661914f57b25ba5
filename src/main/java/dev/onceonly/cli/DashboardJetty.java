package dev.onceonly.cli;

import dev.onceonly.dashboard.DashboardServlet;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * How {@code onceonly dashboard}'s Jetty answers what never reaches the dashboard: a method the
 * dashboard does not use (TRACE would echo the access token's cookie) is refused with 405 before
 * any handler reads it, and every answer, Jetty's own error pages for a malformed request included,
 * carries the dashboard's security headers and names no server or version.
 */
final class DashboardJetty {
  private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST");
  private static final Map<String, String> HEADERS = DashboardServlet.securityHeaders();

  private DashboardJetty() {}

  /** {@return an HTTP configuration that sends neither {@code Server} nor {@code X-Powered-By}} */
  static HttpConfiguration httpConfiguration() {
    HttpConfiguration config = new HttpConfiguration();
    config.setSendServerVersion(false);
    config.setSendXPoweredBy(false);
    return config;
  }

  /** {@return an error handler for the server: plain pages with the security headers} */
  static ErrorHandler errorHandler() {
    return new Errors();
  }

  /** {@return {@code next} behind the refusal of other methods and the security headers} */
  static Handler guarded(Handler next) {
    return new Methods(next);
  }

  private static void secure(HttpFields.Mutable fields) {
    HEADERS.forEach(fields::put);
  }

  /** Refuses other methods than the dashboard's; puts the headers on every answer. */
  private static final class Methods extends Handler.Wrapper {
    Methods(Handler next) {
      super(next);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      secure(response.getHeaders());
      if (METHODS.contains(request.getMethod())) {
        return super.handle(request, response, callback);
      }
      response.getHeaders().put(HttpHeader.ALLOW, DashboardServlet.allowedMethods());
      Response.writeError(request, response, callback, 405);
      return true;
    }
  }

  /** Jetty's error pages, with the headers, and without stacks or the server's version. */
  private static final class Errors extends ErrorHandler {
    Errors() {
      setShowStacks(false);
      setShowCauses(false);
      setShowOrigin(false);
      setShowMessageInTitle(false);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      secure(response.getHeaders());
      return super.handle(request, response, callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
      secure(fields);
      return super.badMessageError(status, reason, fields);
    }
  }
}
