package dev.onceonly.queue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A recurring schedule as stored: what it sends, when, and where it stands.
 *
 * @param name the schedule's name, unique in the store
 * @param queue the queue its runs are sent to
 * @param spec when its runs are due
 * @param payload the payload of every run, as stored (canonical JSON)
 * @param nextRun when the next slot is due; empty while paused, or, for a fixed delay, while the
 *     previous run is still in the queue
 * @param lastSlot the newest slot a run was sent for, empty before the first
 * @param paused whether firing is paused
 */
public record Schedule(
    String name,
    String queue,
    ScheduleSpec spec,
    JsonNode payload,
    Optional<Instant> nextRun,
    Optional<Instant> lastSlot,
    boolean paused) {
  /**
   * Refuses nulls.
   *
   * @param name the schedule's name
   * @param queue the queue its runs are sent to
   * @param spec when its runs are due
   * @param payload the payload of every run
   * @param nextRun when the next slot is due
   * @param lastSlot the newest slot a run was sent for
   * @param paused whether firing is paused
   */
  public Schedule {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(nextRun, "nextRun");
    Objects.requireNonNull(lastSlot, "lastSlot");
  }

  /**
   * Returns the key of the run of one slot: the schedule's name, {@code @}, and the slot's instant
   * in ISO-8601 ({@code nightly-report@2026-12-01T06:00:00Z}). A handler can read the slot from it;
   * {@link JobQueue#withdraw} takes a queued run back by it.
   *
   * @param name the schedule's name
   * @param slot the slot
   * @return the message key of that slot's run
   */
  public static String runKey(String name, Instant slot) {
    return name + "@" + slot;
  }
}
