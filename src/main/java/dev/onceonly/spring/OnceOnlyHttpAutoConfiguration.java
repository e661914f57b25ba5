package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import dev.onceonly.http.IdempotencyFilter;
import dev.onceonly.http.ScopeResolver;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Auto-configuration of the {@link IdempotencyFilter} from {@code onceonly.http.*} ({@link
 * OnceOnlyHttpProperties}), registered with the servlet container for every path (the filter
 * matches its routes itself). It does nothing unless the Servlet API is present, an {@link
 * OnceOnly} bean exists and at least one route is set ({@code onceonly.http.routes[0].name}), and
 * backs off for an {@code IdempotencyFilter} bean of the application's.
 *
 * <p>With {@code onceonly.http.transactional} (the default) handlers run in a transaction of the
 * application's {@link PlatformTransactionManager}, which the stored response joins: that needs
 * {@code onceonly.join-transactions} (the default) on the same data source. A {@link ScopeResolver}
 * bean replaces the scope from the principal; {@link IdempotencyFilterCustomizer} beans have the
 * last word.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class)
@ConditionalOnClass(name = "jakarta.servlet.Filter")
@ConditionalOnBean(OnceOnly.class)
@Conditional(OnceOnlyHttpAutoConfiguration.RoutesSet.class)
@EnableConfigurationProperties(OnceOnlyHttpProperties.class)
public class OnceOnlyHttpAutoConfiguration {
  /** Creates the auto-configuration; Spring calls it. */
  public OnceOnlyHttpAutoConfiguration() {}

  /**
   * The filter, built from the properties.
   *
   * @param once the store
   * @param properties the {@code onceonly.http.*} properties
   * @param onceProperties the {@code onceonly.*} properties
   * @param transactions the application's transaction manager, for the transactional mode
   * @param scopes the application's scope resolver, if it has one
   * @param customizers the application's last words on the builder, in order
   * @return the filter
   * @throws IllegalStateException if the transactional mode is set but cannot work
   */
  @Bean
  @ConditionalOnMissingBean
  public IdempotencyFilter onceOnlyIdempotencyFilter(
      OnceOnly once,
      OnceOnlyHttpProperties properties,
      ObjectProvider<OnceOnlyProperties> onceProperties,
      ObjectProvider<PlatformTransactionManager> transactions,
      ObjectProvider<ScopeResolver> scopes,
      ObjectProvider<IdempotencyFilterCustomizer> customizers) {
    IdempotencyFilter.Builder b =
        IdempotencyFilter.builder(once)
            .missingScopeStatus(properties.missingScopeStatus())
            .replayHeaders(properties.replayHeaders().toArray(String[]::new))
            .maxRequestBytes(properties.maxRequestBytes())
            .maxResponseBytes(properties.maxResponseBytes())
            .maxKeyLength(properties.maxKeyLength())
            .replayRetention(properties.replayRetention())
            .retryAfter(properties.retryAfter())
            .problemTypeBase(properties.problemTypeBase());
    properties.builtRoutes().forEach(b::route);
    ScopeResolver scope = scopes.getIfAvailable();
    if (scope != null) {
      b.scope(scope);
    } else if (!properties.scopeHeader().isEmpty()) {
      b.scope(ScopeResolver.header(properties.scopeHeader()));
    }
    if (properties.transactional()) {
      PlatformTransactionManager manager = transactions.getIfUnique();
      if (manager == null) {
        throw new IllegalStateException(
            "onceonly.http.transactional needs one PlatformTransactionManager on the data source"
                + " OnceOnly uses; set onceonly.http.transactional=false for the plain mode");
      }
      OnceOnlyProperties p = onceProperties.getIfAvailable();
      if (p != null && !p.joinTransactions()) {
        throw new IllegalStateException(
            "onceonly.http.transactional needs onceonly.join-transactions=true, or the stored"
                + " response would commit without the handler's writes");
      }
      b.transactional(new SpringHandlerTransaction(manager));
    }
    customizers.orderedStream().forEach(c -> c.customize(b));
    return b.build();
  }

  /**
   * Registers the filter with the servlet container for every path, at {@code onceonly.http.order}.
   *
   * @param filter the filter
   * @param properties the {@code onceonly.http.*} properties
   * @return the registration
   */
  @Bean
  @ConditionalOnMissingBean(name = "onceOnlyIdempotencyFilterRegistration")
  public FilterRegistrationBean<IdempotencyFilter> onceOnlyIdempotencyFilterRegistration(
      IdempotencyFilter filter, OnceOnlyHttpProperties properties) {
    FilterRegistrationBean<IdempotencyFilter> registration = new FilterRegistrationBean<>(filter);
    registration.addUrlPatterns("/*");
    registration.setOrder(properties.order());
    return registration;
  }

  /** Matches when {@code onceonly.http.enabled} is not false and a route is set. */
  static final class RoutesSet extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      Binder binder = Binder.get(context.getEnvironment());
      boolean enabled = binder.bind("onceonly.http.enabled", Boolean.class).orElse(true);
      boolean routes =
          binder
              .bind(
                  "onceonly.http.routes",
                  Bindable.listOf(OnceOnlyHttpProperties.RouteProperties.class))
              .map(list -> !list.isEmpty())
              .orElse(false);
      if (!enabled) {
        return ConditionOutcome.noMatch("onceonly.http.enabled is false");
      }
      return routes
          ? ConditionOutcome.match("onceonly.http.routes is set")
          : ConditionOutcome.noMatch("no onceonly.http.routes");
    }
  }
}
