package dev.onceonly.http;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;

/**
 * The resolvers {@link ScopeResolver} gives out, as types the filter recognizes, so that its {@code
 * scope-missing} answer says where the scope was looked for.
 */
final class ScopeSources {
  private ScopeSources() {}

  /** The authenticated principal's name. */
  static final class PrincipalScope implements ScopeResolver {
    static final PrincipalScope INSTANCE = new PrincipalScope();

    private PrincipalScope() {}

    @Override
    public String scope(HttpServletRequest request) {
      Principal p = request.getUserPrincipal();
      return p == null ? null : p.getName();
    }
  }

  /** A header set by a gateway from the authenticated identity. */
  record HeaderScope(String name) implements ScopeResolver {
    @Override
    public String scope(HttpServletRequest request) {
      return request.getHeader(name);
    }
  }

  /** {@return what a request without a scope lacks, for the problem's detail} */
  static String missing(ScopeResolver resolver) {
    if (resolver instanceof HeaderScope header) {
      return "no " + header.name() + " header";
    }
    if (resolver instanceof PrincipalScope) {
      return "no authenticated principal";
    }
    return "the application's ScopeResolver found none";
  }
}
