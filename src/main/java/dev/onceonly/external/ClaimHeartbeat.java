package dev.onceonly.external;

import dev.onceonly.Bounds;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a claim's lease alive while a long call runs: renews it through {@link
 * ExternalEffects#renew} every third of the lease on a daemon thread of its own, until closed or
 * until a renewal finds the claim no longer held (then it stops, and {@link #isLost()} says so). A
 * renewal that fails on the store is logged and tried again at the next beat; the lease grants two
 * more beats of slack. Made by {@link ExternalEffects#heartbeat}. Thread-safe.
 */
public final class ClaimHeartbeat implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ClaimHeartbeat.class.getName());

  private final ExternalEffects effects;
  private final Duration lease;
  private final ScheduledExecutorService beats;
  private volatile Claim claim;
  private volatile boolean lost;

  private ClaimHeartbeat(ExternalEffects effects, Claim claim, Duration lease) {
    this.effects = effects;
    this.claim = claim;
    this.lease = lease;
    this.beats =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread t = new Thread(task, "onceonly-heartbeat-" + claim.key().key());
              t.setDaemon(true);
              return t;
            });
  }

  static ClaimHeartbeat start(ExternalEffects effects, Claim claim, Duration lease) {
    Objects.requireNonNull(effects, "effects");
    Objects.requireNonNull(claim, "claim");
    Bounds.positive(lease, "lease");
    ClaimHeartbeat beat = new ClaimHeartbeat(effects, claim, lease);
    long every = Math.max(1, lease.toMillis() / 3);
    beat.beats.scheduleWithFixedDelay(beat::beat, 0, every, TimeUnit.MILLISECONDS);
    return beat;
  }

  private void beat() {
    try {
      Optional<Claim> renewed = effects.renew(claim, lease);
      if (renewed.isPresent()) {
        claim = renewed.get();
      } else {
        lost = true;
        beats.shutdown();
      }
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot renew the claim on " + claim.key(), e);
    }
  }

  /** {@return the claim as last renewed, its {@link Claim#leaseUntil()} the latest granted} */
  public Claim claim() {
    return claim;
  }

  /**
   * {@return whether a renewal found the claim no longer held} (taken over after its lease ran out,
   * or settled): the effect must not be started, and what was sent must be reported
   */
  public boolean isLost() {
    return lost;
  }

  /** Stops renewing, waiting for a renewal in progress; the lease then runs its course. */
  @Override
  public void close() {
    beats.shutdown();
    try {
      beats.awaitTermination(lease.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
