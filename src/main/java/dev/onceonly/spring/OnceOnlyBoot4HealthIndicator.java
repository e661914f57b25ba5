package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Actuator's health of the store on Spring Boot 4 (its {@code spring-boot-health} module, {@code
 * org.springframework.boot.health.contributor}); the same figures and judgement as {@link
 * OnceOnlyHealthIndicator} on Boot 3: {@code DOWN} when the schema is not this library's version,
 * or when the oldest pending intent, the unknown external outcomes or the dead letters exceed their
 * {@code onceonly.health.*} bound; otherwise {@code UP} with those figures as details. A bound left
 * unset is reported, never judged. A database that cannot be read is {@code DOWN} with the error.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
public final class OnceOnlyBoot4HealthIndicator extends AbstractHealthIndicator {
  private final OnceOnly once;
  private final OnceOnlyProperties.Health bounds;

  /**
   * Creates the indicator.
   *
   * @param once the store
   * @param bounds the thresholds
   */
  public OnceOnlyBoot4HealthIndicator(OnceOnly once, OnceOnlyProperties.Health bounds) {
    super("OnceOnly health check failed");
    this.once = Objects.requireNonNull(once, "once");
    this.bounds = Objects.requireNonNull(bounds, "bounds");
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    OnceOnlyHealth health = OnceOnlyHealth.of(once.maintenance(), bounds);
    (health.down() ? builder.down() : builder.up()).withDetails(health.details());
  }
}
