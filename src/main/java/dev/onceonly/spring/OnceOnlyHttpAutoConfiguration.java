package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import dev.onceonly.http.IdempotencyFilter;
import dev.onceonly.http.ScopeResolver;
import java.util.function.Consumer;
import org.springframework.beans.factory.ListableBeanFactory;
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
   * @param beans the application's beans, to name the transaction managers found
   * @param scopes the application's scope resolver, if it has one
   * @param customizers the application's last words on the builder, in order
   * @return the filter
   * @throws OnceOnlyConfigurationException if a setting is out of its bounds, or the transactional
   *     mode is set but cannot work
   */
  @Bean
  @ConditionalOnMissingBean
  public IdempotencyFilter onceOnlyIdempotencyFilter(
      OnceOnly once,
      OnceOnlyHttpProperties properties,
      ObjectProvider<OnceOnlyProperties> onceProperties,
      ObjectProvider<PlatformTransactionManager> transactions,
      ListableBeanFactory beans,
      ObjectProvider<ScopeResolver> scopes,
      ObjectProvider<IdempotencyFilterCustomizer> customizers) {
    IdempotencyFilter.Builder b = IdempotencyFilter.builder(once);
    set("missing-scope-status", properties.missingScopeStatus(), b::missingScopeStatus);
    set(
        "replay-headers",
        properties.replayHeaders(),
        h -> b.replayHeaders(h.toArray(String[]::new)));
    set("max-request-bytes", properties.maxRequestBytes(), b::maxRequestBytes);
    set("max-response-bytes", properties.maxResponseBytes(), b::maxResponseBytes);
    set("max-key-length", properties.maxKeyLength(), b::maxKeyLength);
    set("replay-retention", properties.replayRetention(), b::replayRetention);
    set("retry-after", properties.retryAfter(), b::retryAfter);
    set("problem-type-base", properties.problemTypeBase(), b::problemTypeBase);
    set("routes", properties.builtRoutes(), routes -> routes.forEach(b::route));
    ScopeResolver scope = scopes.getIfAvailable();
    if (scope != null) {
      b.scope(scope);
    } else if (!properties.scopeHeader().isEmpty()) {
      set("scope-header", properties.scopeHeader(), h -> b.scope(ScopeResolver.header(h)));
    }
    if (properties.transactional()) {
      PlatformTransactionManager manager = transactionManager(properties, beans, transactions);
      OnceOnlyProperties p = onceProperties.getIfAvailable();
      if (p != null && !p.joinTransactions()) {
        throw new OnceOnlyConfigurationException(
            "onceonly.http.transactional needs onceonly.join-transactions=true, or the stored"
                + " response would commit without the handler's writes",
            "set onceonly.join-transactions=true, or onceonly.http.transactional=false for the"
                + " plain mode",
            null);
      }
      b.transactional(new SpringHandlerTransaction(manager));
    }
    customizers.orderedStream().forEach(c -> c.customize(b));
    return b.build();
  }

  /**
   * The transaction manager the transactional mode runs handlers in: the one {@code
   * onceonly.http.transaction-manager} names, else the only or the {@code @Primary} one.
   */
  private static PlatformTransactionManager transactionManager(
      OnceOnlyHttpProperties properties,
      ListableBeanFactory beans,
      ObjectProvider<PlatformTransactionManager> transactions) {
    String named = properties.transactionManager();
    String[] names = beans.getBeanNamesForType(PlatformTransactionManager.class);
    if (!named.isEmpty()) {
      if (!java.util.Arrays.asList(names).contains(named)) {
        throw new OnceOnlyConfigurationException(
            "onceonly.http.transaction-manager names "
                + named
                + ", which is no PlatformTransactionManager bean; found: "
                + String.join(", ", names),
            "set onceonly.http.transaction-manager to the bean name of the transaction manager on"
                + " the data source OnceOnly uses",
            null);
      }
      return beans.getBean(named, PlatformTransactionManager.class);
    }
    PlatformTransactionManager manager = transactions.getIfUnique();
    if (manager != null) {
      return manager;
    }
    if (names.length > 1) {
      throw new OnceOnlyConfigurationException(
          "onceonly.http.transactional needs one PlatformTransactionManager on the data source"
              + " OnceOnly uses, and found "
              + names.length
              + " with none @Primary: "
              + String.join(", ", names),
          "mark the one on OnceOnly's data source @Primary, or set"
              + " onceonly.http.transaction-manager to its bean name (one of "
              + String.join(", ", names)
              + "), or onceonly.http.transactional=false for the plain mode",
          null);
    }
    throw new OnceOnlyConfigurationException(
        "onceonly.http.transactional needs one PlatformTransactionManager on the data source"
            + " OnceOnly uses, and found none",
        "declare one, or set onceonly.http.transactional=false for the plain mode",
        null);
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

  /** Applies one property to the builder, turning its refusal into one that names the property. */
  private static <T> void set(String property, T value, Consumer<T> setter) {
    try {
      setter.accept(value);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new OnceOnlyConfigurationException(
          "onceonly.http." + property + ": " + e.getMessage(),
          "set onceonly.http." + property + " within the bounds the message gives",
          e);
    }
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
