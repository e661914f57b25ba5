package dev.onceonly.queue;

import dev.onceonly.Bounds;
import java.time.Duration;

/**
 * What a schedule does with the slots that passed while nothing fired it (every instance down, the
 * queue unserved): the slots that are due when it is fired again, all but the newest of which are
 * missed. A slot that is fired on time is never missed, whatever the policy.
 */
public sealed interface CatchUp {
  /**
   * One run for every slot that is due, keyed by the newest of them: a report that summarizes the
   * period runs once after a night of downtime, not once per missed hour. The default.
   *
   * @return the policy
   */
  static CatchUp once() {
    return Once.INSTANCE;
  }

  /**
   * A run for every due slot, the newest {@code max} of them when more are due (the older ones are
   * skipped): each slot's run does a slot's work, such as a per-hour export.
   *
   * @param max the most runs one catch-up sends, 1 to 10,000
   * @return the policy
   */
  static CatchUp all(int max) {
    return new All(max);
  }

  /**
   * No run for missed slots: the newest due slot runs only if it became due at most {@code
   * tolerance} ago, otherwise the schedule waits for the next slot. For work that is worthless
   * late, such as a cache warm-up.
   *
   * @param tolerance how late a slot may still run, positive
   * @return the policy
   */
  static CatchUp skip(Duration tolerance) {
    return new Skip(tolerance);
  }

  /** {@return the stored form, {@code once}, {@code all:<max>} or {@code skip:<ISO-8601>}} */
  String text();

  /** One run for all due slots. */
  enum Once implements CatchUp {
    /** The only instance. */
    INSTANCE;

    @Override
    public String text() {
      return "once";
    }
  }

  /**
   * A run per due slot, at most {@code max}.
   *
   * @param max the most runs one catch-up sends
   */
  record All(int max) implements CatchUp {
    /** The largest {@code max}. */
    public static final int MAX = 10_000;

    /**
     * Checks the bound.
     *
     * @param max the most runs one catch-up sends, 1 to {@value #MAX}
     */
    public All {
      if (max < 1 || max > MAX) {
        throw new IllegalArgumentException("max must be between 1 and " + MAX);
      }
    }

    @Override
    public String text() {
      return "all:" + max;
    }
  }

  /**
   * Missed slots skipped.
   *
   * @param tolerance how late the newest due slot may still run
   */
  record Skip(Duration tolerance) implements CatchUp {
    /**
     * Checks the bound.
     *
     * @param tolerance how late the newest due slot may still run, positive
     */
    public Skip {
      Bounds.positive(tolerance, "tolerance");
    }

    @Override
    public String text() {
      return "skip:" + tolerance;
    }
  }
}
