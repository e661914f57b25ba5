package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.dashboard.DashboardServlet;
import jakarta.servlet.http.HttpServletRequest;
import java.util.function.Predicate;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of the operator's dashboard ({@link DashboardServlet}) from {@code
 * onceonly.dashboard.*} ({@link OnceOnlyDashboardProperties}): off unless {@code
 * onceonly.dashboard.enabled=true}, then served under {@code onceonly.dashboard.path} (default
 * {@code /onceonly}) through a {@link ServletRegistrationBean}. Needs the Servlet API and an {@link
 * OnceOnly} bean; backs off for a bean named {@code onceOnlyDashboard} of the application's.
 *
 * <p>Who sees the pages is the application's security (Spring Security's rules for that path). Who
 * may act is {@code onceonly.dashboard.authority}: with Spring Security on the class path, the
 * current {@code Authentication} must hold exactly that authority; without it, the servlet
 * container's {@code isUserInRole} decides. Each action is logged with the request's principal's
 * name. Every action form also carries Spring Security's CSRF token when its CSRF check is on, so
 * the dashboard's path needs no exemption from it. A {@link Reconciler} bean, if there is exactly
 * one, gives the Receipts page its button.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class)
@ConditionalOnClass(name = "jakarta.servlet.http.HttpServlet")
@ConditionalOnBean(OnceOnly.class)
@ConditionalOnProperty(prefix = "onceonly.dashboard", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(OnceOnlyDashboardProperties.class)
public class OnceOnlyDashboardAutoConfiguration {
  private static final String SECURITY_CONTEXT =
      "org.springframework.security.core.context.SecurityContextHolder";

  /** Creates the auto-configuration; Spring calls it. */
  public OnceOnlyDashboardAutoConfiguration() {}

  /**
   * The dashboard, registered under {@code onceonly.dashboard.path}.
   *
   * @param once the store
   * @param properties the {@code onceonly.dashboard.*} properties
   * @param reconcilers the application's reconciler, if it has exactly one
   * @return the servlet's registration
   */
  @Bean
  @ConditionalOnMissingBean(name = "onceOnlyDashboard")
  public ServletRegistrationBean<DashboardServlet> onceOnlyDashboard(
      OnceOnly once,
      OnceOnlyDashboardProperties properties,
      ObjectProvider<Reconciler> reconcilers) {
    DashboardServlet.Builder b =
        DashboardServlet.builder(once)
            .readOnly(properties.readOnly())
            .mayAct(mayAct(properties.authority(), getClass().getClassLoader()))
            .formFields(new SpringSecurityCsrfField());
    Reconciler reconciler = reconcilers.getIfUnique();
    if (reconciler != null) {
      b.reconciler(reconciler);
    }
    ServletRegistrationBean<DashboardServlet> registration =
        new ServletRegistrationBean<>(b.build(), properties.path() + "/*");
    registration.setName("onceOnlyDashboard");
    return registration;
  }

  /**
   * Returns who may act: the holders of {@code authority} in Spring Security's context when it is
   * on the class path, else the container's users in that role.
   */
  static Predicate<HttpServletRequest> mayAct(String authority, ClassLoader loader) {
    if (ClassUtils.isPresent(SECURITY_CONTEXT, loader)) {
      return new SpringSecurityAuthority(authority);
    }
    return req -> req.isUserInRole(authority);
  }
}
