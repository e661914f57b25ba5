package dev.onceonly.spring;

import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.function.Function;

/**
 * Spring Security's CSRF token as a hidden form field, for the dashboard's forms: Spring Security's
 * {@code CsrfFilter} checks every POST before the dashboard sees it, so each form carries the token
 * that filter put on the request. Read through the public {@code CsrfToken} interface by
 * reflection, so that the library needs {@code spring-security-web} neither to compile nor at run
 * time: without Spring Security, or with its CSRF check off, the request has no token and the forms
 * carry none.
 */
final class SpringSecurityCsrfField implements Function<HttpServletRequest, Map<String, String>> {
  /** The request attribute and interface under which {@code CsrfFilter} leaves the token. */
  static final String CSRF_TOKEN = "org.springframework.security.web.csrf.CsrfToken";

  @Override
  public Map<String, String> apply(HttpServletRequest req) {
    Object token = req.getAttribute(CSRF_TOKEN);
    if (token == null) {
      return Map.of();
    }
    try {
      // Through the interface: the token's own class is often private (a deferred token).
      Class<?> type = Class.forName(CSRF_TOKEN, false, token.getClass().getClassLoader());
      Method name = type.getMethod("getParameterName");
      Method value = type.getMethod("getToken");
      return Map.of((String) name.invoke(token), (String) value.invoke(token));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot read Spring Security's CSRF token", e);
    }
  }
}
