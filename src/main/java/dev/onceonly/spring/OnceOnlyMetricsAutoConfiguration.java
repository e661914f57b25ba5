package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import dev.onceonly.micrometer.OnceOnlyMetrics;
import dev.onceonly.micrometer.StoreGauges;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers OnceOnly's Micrometer meters when Micrometer is on the class path and the application
 * has a {@link MeterRegistry} bean: {@link OnceOnlyMetrics} as a listener of the {@link OnceOnly}
 * bean (through a {@link OnceOnlyBuilderCustomizer}, so before the store is built) and {@link
 * StoreGauges} sampled every 30 seconds. Its conditions are read after Boot's metrics
 * auto-configuration (which declares the registry) and after {@link OnceOnlyAutoConfiguration}
 * (which declares the store); the customizer still reaches the store's builder, which is only
 * called once every bean is declared. An {@code OnceOnly} bean of the application's own gets the
 * gauges but not the listener: add {@code OnceOnlyMetrics} to its builder. Declare a {@code
 * StoreGauges} bean of your own for another interval. See docs/observability.md for the meters.
 */
// Spring's and Micrometer's types are the application's: nothing to re-export.
@SuppressWarnings("exports")
@AutoConfiguration(
    after = OnceOnlyAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
@ConditionalOnBean({MeterRegistry.class, OnceOnly.class})
public class OnceOnlyMetricsAutoConfiguration {
  /** How often the gauges read the store's counts, unless the application declares its own. */
  public static final Duration GAUGE_INTERVAL = Duration.ofSeconds(30);

  /** Creates the configuration; Spring calls it. */
  public OnceOnlyMetricsAutoConfiguration() {}

  /**
   * The listener that records the meters.
   *
   * @param registry the application's registry
   * @return the listener
   */
  @Bean
  @ConditionalOnMissingBean
  public OnceOnlyMetrics onceOnlyMetrics(MeterRegistry registry) {
    return OnceOnlyMetrics.of(registry);
  }

  /**
   * Adds the listener to the store's builder.
   *
   * @param metrics the listener
   * @return the customizer
   */
  @Bean
  public OnceOnlyBuilderCustomizer onceOnlyMetricsCustomizer(OnceOnlyMetrics metrics) {
    return builder -> builder.listener(metrics);
  }

  /**
   * The gauges of the store's rows, bound to the registry and sampled every {@link
   * #GAUGE_INTERVAL}; closed with the context.
   *
   * @param store the store
   * @param metrics the listener, whose dropped-events counter is bound here too
   * @param registry the application's registry
   * @return the gauges
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public StoreGauges onceOnlyStoreGauges(
      OnceOnly store, OnceOnlyMetrics metrics, MeterRegistry registry) {
    metrics.bindDropped(store.events());
    StoreGauges gauges = StoreGauges.of(store.maintenance(), GAUGE_INTERVAL);
    gauges.bindTo(registry);
    return gauges;
  }
}
