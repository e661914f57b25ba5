package dev.onceonly.queue;

import dev.onceonly.Bounds;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * When a schedule's runs are due: on a cron expression in a time zone, at a fixed rate, or a fixed
 * delay after the previous run has left the queue; with the {@link CatchUp} policy for slots missed
 * while nothing fired the schedule.
 *
 * <p>Each run is a message keyed by its slot, so a slot runs once however many instances fire the
 * schedule (see {@link Schedules}).
 */
public sealed interface ScheduleSpec {
  /**
   * Slots on a cron expression, in UTC: five fields ({@code minute hour day-of-month month
   * day-of-week}, as in crontab) or six with seconds first (as in Spring's {@code @Scheduled}).
   * Parsed by cron-utils, which must be on the class path ({@code com.cronutils:cron-utils}).
   *
   * @param expression the cron expression, for example {@code "0 6 * * MON-FRI"}
   * @return the spec, catching up {@link CatchUp#once()}
   */
  static ScheduleSpec cron(String expression) {
    return cron(expression, ZoneOffset.UTC);
  }

  /**
   * Slots on a cron expression in a time zone, so {@code "0 6 * * *"} stays at six in the morning
   * across daylight saving changes. At a change, as in Vixie cron: an expression whose hour field
   * is written with {@code *} ({@code "0 * * * *"}, {@code "0 *}{@code /2 * * *"}) follows real
   * time, so it runs in both passes of a repeated hour and not at all in a skipped one; any other
   * runs each local time once, at its first pass, and the times a change skips once, at the instant
   * of the change (see "Daylight-saving changes" in {@code docs/queue.md}).
   *
   * @param expression the cron expression, five or six fields
   * @param zone the time zone the fields are read in
   * @return the spec, catching up {@link CatchUp#once()}
   */
  static ScheduleSpec cron(String expression, ZoneId zone) {
    return new Cron(expression, zone, CatchUp.once());
  }

  /**
   * Slots every {@code period}, the first at registration: slot {@code n} is due at {@code
   * registered + n × period} whatever time the runs take.
   *
   * @param period the time between slots, at least one second
   * @return the spec, catching up {@link CatchUp#once()}
   */
  static ScheduleSpec fixedRate(Duration period) {
    return new FixedRate(period, CatchUp.once());
  }

  /**
   * A run at registration, then each next one {@code delay} after the previous run's message left
   * the queue (acknowledged or dead-lettered), so runs never overlap. As this spacing depends on
   * the runs, it has no missed slots and no catch-up policy.
   *
   * @param delay the time from one run's end to the next run, at least one second
   * @return the spec
   */
  static ScheduleSpec fixedDelay(Duration delay) {
    return new FixedDelay(delay);
  }

  /** {@return what this spec does with missed slots} */
  CatchUp catchUp();

  /**
   * Returns this spec with another catch-up policy.
   *
   * @param policy the policy for missed slots
   * @return the new spec
   * @throws IllegalArgumentException for a {@link FixedDelay}, which has no missed slots
   */
  ScheduleSpec catchUp(CatchUp policy);

  /**
   * A cron schedule.
   *
   * @param expression the cron expression, five or six fields
   * @param zone the time zone the fields are read in
   * @param catchUp the policy for missed slots
   */
  record Cron(String expression, ZoneId zone, CatchUp catchUp) implements ScheduleSpec {
    /**
     * Refuses nulls and blank expressions (the fields are checked when the schedule is registered).
     *
     * @param expression the cron expression, five or six fields
     * @param zone the time zone the fields are read in
     * @param catchUp the policy for missed slots
     */
    public Cron {
      Objects.requireNonNull(expression, "expression");
      Objects.requireNonNull(zone, "zone");
      Objects.requireNonNull(catchUp, "catchUp");
      expression = expression.trim().replaceAll("\\s+", " ");
      if (expression.isEmpty()) {
        throw new IllegalArgumentException("expression must not be blank");
      }
    }

    @Override
    public ScheduleSpec catchUp(CatchUp policy) {
      return new Cron(expression, zone, policy);
    }
  }

  /**
   * A fixed-rate schedule.
   *
   * @param period the time between slots
   * @param catchUp the policy for missed slots
   */
  record FixedRate(Duration period, CatchUp catchUp) implements ScheduleSpec {
    /**
     * Checks the bounds.
     *
     * @param period the time between slots, at least one second
     * @param catchUp the policy for missed slots
     */
    public FixedRate {
      atLeastASecond(period, "period");
      Objects.requireNonNull(catchUp, "catchUp");
    }

    @Override
    public ScheduleSpec catchUp(CatchUp policy) {
      return new FixedRate(period, policy);
    }
  }

  /**
   * A fixed-delay schedule.
   *
   * @param delay the time from one run's end to the next run
   */
  record FixedDelay(Duration delay) implements ScheduleSpec {
    /**
     * Checks the bound.
     *
     * @param delay the time from one run's end to the next run, at least one second
     */
    public FixedDelay {
      atLeastASecond(delay, "delay");
    }

    @Override
    public CatchUp catchUp() {
      return CatchUp.once();
    }

    @Override
    public ScheduleSpec catchUp(CatchUp policy) {
      throw new IllegalArgumentException("a fixed-delay schedule has no missed slots to catch up");
    }
  }

  private static void atLeastASecond(Duration d, String name) {
    Bounds.positive(d, name);
    if (d.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(name + " must be at least 1 second");
    }
  }
}
