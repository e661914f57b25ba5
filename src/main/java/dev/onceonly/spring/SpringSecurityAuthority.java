package dev.onceonly.spring;

import jakarta.servlet.http.HttpServletRequest;
import java.util.function.Predicate;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * Whether the current request's user holds one authority, read from Spring Security's context.
 * Loaded only when Spring Security is on the class path ({@link
 * OnceOnlyDashboardAutoConfiguration}).
 */
final class SpringSecurityAuthority implements Predicate<HttpServletRequest> {
  private final String authority;

  SpringSecurityAuthority(String authority) {
    this.authority = authority;
  }

  @Override
  public boolean test(HttpServletRequest req) {
    Authentication auth = SecurityContextHolder.getContext().getAuthentication();
    if (auth == null || !auth.isAuthenticated()) {
      return false;
    }
    for (GrantedAuthority a : auth.getAuthorities()) {
      if (authority.equals(a.getAuthority())) {
        return true;
      }
    }
    return false;
  }
}
