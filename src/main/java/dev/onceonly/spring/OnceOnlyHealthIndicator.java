package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import java.util.Objects;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Actuator's health of the store, from {@link OnceOnly#maintenance()}: {@code DOWN} when the schema
 * is not this library's version, or when the oldest pending intent, the unknown external outcomes
 * or the dead letters exceed their {@code onceonly.health.*} bound; otherwise {@code UP} with those
 * figures as details. A bound left unset is reported, never judged. A database that cannot be read
 * is {@code DOWN} with the error. For Spring Boot 3 (Actuator's {@code
 * org.springframework.boot.actuate.health}); on Spring Boot 4 the same health is {@link
 * OnceOnlyBoot4HealthIndicator}.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
public final class OnceOnlyHealthIndicator extends AbstractHealthIndicator {
  private final OnceOnly once;
  private final OnceOnlyProperties.Health bounds;

  /**
   * Creates the indicator.
   *
   * @param once the store
   * @param bounds the thresholds
   */
  public OnceOnlyHealthIndicator(OnceOnly once, OnceOnlyProperties.Health bounds) {
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
