package dev.onceonly.http;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Objects;

/**
 * Finds the scope (owner) of a request's idempotency key: the same key under two scopes is two
 * intents. The scope must come from the caller's authenticated identity, never from the body, so
 * that one client cannot replay another's response.
 */
@FunctionalInterface
public interface ScopeResolver {
  /**
   * Returns the scope of {@code request}, or null when the request has none (the filter then
   * answers with the configured status, 401 by default; its detail names the header or the
   * principal when the resolver is {@link #header} or {@link #principal}).
   *
   * @param request the request
   * @return the scope, or null
   */
  String scope(HttpServletRequest request);

  /**
   * Returns the default resolver: the name of the authenticated principal ({@link
   * HttpServletRequest#getUserPrincipal()}), set by the container's or the framework's
   * authentication before this filter runs.
   *
   * @return the resolver
   */
  static ScopeResolver principal() {
    return ScopeSources.PrincipalScope.INSTANCE;
  }

  /**
   * Returns a resolver that reads a tenant header. Use it only behind a gateway that sets the
   * header from the authenticated identity and drops any value the client sent.
   *
   * @param name the header's name, for example {@code X-Tenant-Id}
   * @return the resolver
   * @throws IllegalArgumentException if the name is blank
   */
  static ScopeResolver header(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("header name must not be blank");
    }
    return new ScopeSources.HeaderScope(name);
  }

  /**
   * Returns a resolver that gives every request the same scope: for an API without authentication,
   * where every client shares one key space.
   *
   * @param scope the scope
   * @return the resolver
   */
  static ScopeResolver fixed(String scope) {
    Objects.requireNonNull(scope, "scope");
    return request -> scope;
  }
}
