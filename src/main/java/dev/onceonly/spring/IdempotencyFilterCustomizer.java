package dev.onceonly.spring;

import dev.onceonly.http.IdempotencyFilter;

/**
 * The application's last word on the auto-configured {@link IdempotencyFilter}: called with the
 * builder after the {@code onceonly.http.*} properties were applied, in order.
 */
@FunctionalInterface
public interface IdempotencyFilterCustomizer {
  /**
   * Changes the builder.
   *
   * @param builder the filter's builder, with the properties applied
   */
  void customize(IdempotencyFilter.Builder builder);
}
