package dev.onceonly.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock that stands still until a test moves it. Thread-safe. */
public final class MutableClock implements InstantSource {
  private volatile Instant now;

  public MutableClock(Instant start) {
    this.now = start;
  }

  public static MutableClock at(String instant) {
    return new MutableClock(Instant.parse(instant));
  }

  @Override
  public Instant instant() {
    return now;
  }

  public synchronized void advance(Duration d) {
    now = now.plus(d);
  }

  public void set(Instant instant) {
    now = instant;
  }
}
