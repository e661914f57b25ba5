package dev.onceonly.queue;

import java.util.Objects;

/**
 * What {@link Schedules#register} or {@link Schedules#update} did.
 *
 * @param status what happened
 * @param schedule the schedule as stored after the call: for a {@link Status#CONFLICT}, the one
 *     that was already there, unchanged
 */
public record ScheduleResult(Status status, Schedule schedule) {
  /** The answers of a registration. */
  public enum Status {
    /** The schedule was new and is stored. */
    REGISTERED,
    /** A schedule of that name with the same queue, spec and payload was there; nothing changed. */
    UNCHANGED,
    /**
     * A schedule of that name with another queue, spec or payload is there; nothing written (call
     * {@link Schedules#update} to replace it).
     */
    CONFLICT,
    /** The schedule of that name was replaced; its next run follows the new spec. */
    UPDATED
  }

  /**
   * Refuses nulls.
   *
   * @param status what happened
   * @param schedule the schedule as stored after the call
   */
  public ScheduleResult {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(schedule, "schedule");
  }
}
