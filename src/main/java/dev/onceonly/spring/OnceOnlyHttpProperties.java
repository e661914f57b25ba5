package dev.onceonly.spring;

import dev.onceonly.http.IdempotencyFilter;
import dev.onceonly.http.Route;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code onceonly.http.*} properties: the {@link IdempotencyFilter} the auto-configuration
 * registers once at least one route is set. Every value is checked when it is bound, by the
 * filter's own checks, and a bad one fails the start with a message naming the property.
 *
 * @param enabled whether the filter is registered at all
 * @param transactional whether handlers run in a Spring transaction that the stored response joins
 *     (the transactional mode); otherwise the plain mode
 * @param order the filter's order among the servlet filters; after the authentication's
 * @param routes the guarded routes
 * @param scopeHeader a tenant header to take the scope from, instead of the principal's name; empty
 *     for the principal
 * @param missingScopeStatus the status of a request with a key but no scope: 401 or 400
 * @param replayHeaders the response headers stored and replayed
 * @param maxRequestBytes the largest body of a guarded request
 * @param maxResponseBytes the largest response body stored
 * @param maxKeyLength the longest key accepted
 * @param replayRetention how long a stored response is replayed
 * @param retryAfter the Retry-After of the answer to a request in progress
 * @param problemTypeBase the prefix of the problem types
 * @param transactionManager the bean name of the transaction manager the transactional mode runs
 *     handlers in, where the application has more than one and none is {@code @Primary}; empty for
 *     the only (or the primary) one
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
@ConfigurationProperties("onceonly.http")
public record OnceOnlyHttpProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("true") boolean transactional,
    @DefaultValue("0") int order,
    @DefaultValue List<RouteProperties> routes,
    @DefaultValue("") String scopeHeader,
    @DefaultValue("401") int missingScopeStatus,
    @DefaultValue({"Content-Type", "Content-Language", "Location", "ETag"})
        List<String> replayHeaders,
    @DefaultValue("1048576") int maxRequestBytes,
    @DefaultValue("1048576") int maxResponseBytes,
    @DefaultValue("255") int maxKeyLength,
    @DefaultValue("24h") Duration replayRetention,
    @DefaultValue("1s") Duration retryAfter,
    @DefaultValue(IdempotencyFilter.DEFAULT_PROBLEM_TYPE_BASE) String problemTypeBase,
    @DefaultValue("") String transactionManager) {

  /**
   * Checks every route and bound with the filter's own checks.
   *
   * @param enabled whether the filter is registered
   * @param transactional whether handlers run in a Spring transaction
   * @param order the filter's order
   * @param routes the guarded routes
   * @param scopeHeader a tenant header, or empty for the principal
   * @param missingScopeStatus 401 or 400
   * @param replayHeaders the response headers stored and replayed
   * @param maxRequestBytes the largest body of a guarded request
   * @param maxResponseBytes the largest response body stored
   * @param maxKeyLength the longest key accepted
   * @param replayRetention how long a stored response is replayed
   * @param retryAfter the Retry-After of the answer to a request in progress
   * @param problemTypeBase the prefix of the problem types
   * @param transactionManager the transaction manager's bean name, or empty
   */
  public OnceOnlyHttpProperties {
    routes = List.copyOf(routes);
    replayHeaders = List.copyOf(replayHeaders);
    for (int i = 0; i < routes.size(); i++) {
      try {
        routes.get(i).toRoute();
      } catch (IllegalArgumentException | NullPointerException e) {
        throw new IllegalArgumentException("onceonly.http.routes[" + i + "]: " + e.getMessage(), e);
      }
    }
  }

  /** {@return the routes, built} */
  public List<Route> builtRoutes() {
    List<Route> out = new ArrayList<>();
    routes.forEach(r -> out.add(r.toRoute()));
    return out;
  }

  /**
   * One guarded route ({@link Route}).
   *
   * @param name the route's name, part of its operation
   * @param paths exact paths or prefixes ending in {@code /*}
   * @param methods the methods guarded
   * @param keyRequired whether a request without a key is refused
   * @param lease how long a plain-mode claim holds the key
   * @param afterCrash what a retry gets after a crash in the handler (plain mode)
   * @param fingerprintHeaders request headers that are part of the fingerprint
   */
  public record RouteProperties(
      String name,
      @DefaultValue List<String> paths,
      @DefaultValue({"POST", "PATCH"}) List<String> methods,
      @DefaultValue("false") boolean keyRequired,
      @DefaultValue("30s") Duration lease,
      @DefaultValue("CONFLICT") Route.AfterCrash afterCrash,
      @DefaultValue List<String> fingerprintHeaders) {

    /** {@return the route these properties describe} */
    public Route toRoute() {
      if (name == null) {
        throw new IllegalArgumentException("name must be set");
      }
      Route.Builder b =
          Route.builder(name)
              .methods(methods.toArray(String[]::new))
              .keyRequired(keyRequired)
              .lease(lease)
              .afterCrash(afterCrash)
              .fingerprintHeaders(fingerprintHeaders.toArray(String[]::new));
      paths.forEach(b::path);
      return b.build();
    }
  }
}
