package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link OnceOnlyHealthIndicator} (health contributor {@code onceOnly}) when Spring Boot
 * 3's Actuator is on the class path and there is an {@link OnceOnly} bean. Spring Boot 4 moved the
 * health types to another module and package, so there this configuration backs off and {@link
 * OnceOnlyBoot4HealthAutoConfiguration} registers Boot 4's indicator under the same name.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.AbstractHealthIndicator")
@ConditionalOnBean(OnceOnly.class)
@EnableConfigurationProperties(OnceOnlyProperties.class)
public class OnceOnlyHealthAutoConfiguration {
  /** Creates the configuration; Spring calls it. */
  public OnceOnlyHealthAutoConfiguration() {}

  /**
   * The health indicator of the store.
   *
   * @param once the store
   * @param properties the thresholds under {@code onceonly.health}
   * @return the indicator
   */
  @Bean
  @ConditionalOnMissingBean(name = "onceOnlyHealthIndicator")
  public OnceOnlyHealthIndicator onceOnlyHealthIndicator(
      OnceOnly once, OnceOnlyProperties properties) {
    return new OnceOnlyHealthIndicator(once, properties.health());
  }
}
