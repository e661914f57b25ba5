package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link OnceOnlyBoot4HealthIndicator} (health contributor {@code onceOnly}, as on Boot
 * 3) when Spring Boot 4's health module is on the class path and there is an {@link OnceOnly} bean.
 * On Spring Boot 3 that module is absent, so this configuration backs off and {@link
 * OnceOnlyHealthAutoConfiguration} registers Boot 3's indicator under the same name.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.AbstractHealthIndicator")
@ConditionalOnBean(OnceOnly.class)
@EnableConfigurationProperties(OnceOnlyProperties.class)
public class OnceOnlyBoot4HealthAutoConfiguration {
  /** Creates the configuration; Spring calls it. */
  public OnceOnlyBoot4HealthAutoConfiguration() {}

  /**
   * The health indicator of the store.
   *
   * @param once the store
   * @param properties the thresholds under {@code onceonly.health}
   * @return the indicator
   */
  @Bean
  @ConditionalOnMissingBean(name = "onceOnlyHealthIndicator")
  public OnceOnlyBoot4HealthIndicator onceOnlyHealthIndicator(
      OnceOnly once, OnceOnlyProperties properties) {
    return new OnceOnlyBoot4HealthIndicator(once, properties.health());
  }
}
