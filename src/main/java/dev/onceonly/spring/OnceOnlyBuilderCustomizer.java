package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;

/**
 * Changes the builder of the auto-configured {@link OnceOnly} after the properties were applied:
 * for what properties cannot say (validators, operation rules, an object mapper, a clock). Declare
 * one or more as beans; they run in {@link org.springframework.core.annotation.Order} order.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
@FunctionalInterface
public interface OnceOnlyBuilderCustomizer {
  /**
   * Customizes the builder.
   *
   * @param builder the builder, with the properties applied
   */
  void customize(OnceOnlyBuilder builder);
}
