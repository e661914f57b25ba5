package dev.onceonly.internal;

import java.time.Duration;
import java.util.Objects;

/** Argument checks shared by the builders and stores. */
public final class Checks {
  private Checks() {}

  /**
   * Returns {@code d} if it is positive.
   *
   * @throws NullPointerException if {@code d} is null
   * @throws IllegalArgumentException ({@code "<name> must be > 0"}) if it is zero or negative
   */
  public static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0");
    }
    return d;
  }
}
