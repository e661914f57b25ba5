package dev.onceonly.queue;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Recurring schedules: a message sent to a queue on every slot of a cron expression, a fixed rate
 * or a fixed delay, once per slot across any number of instances and restarts.
 *
 * <p>A schedule is registered by name, idempotently: every instance may register the same schedule
 * at startup. A slot's run is the message {@link Schedule#runKey(String, java.time.Instant)
 * name&#64;slot} on the schedule's queue, and the schedule's next slot moves on in the same
 * transaction that sends it, only if no one moved it first; so two instances firing at once send
 * one run, and a crash before the commit leaves the slot due. Runs are then ordinary messages:
 * handled by a {@link Worker} (or {@link JobQueue#receive}) with the queue's retries and dead
 * letters.
 *
 * <p>Who fires: every {@link JobQueue#receive} of a queue first fires its due schedules in the same
 * transaction (it looks for them at most once a second per queue and instance, and at once after a
 * registration through this instance), so a worker serving the queue runs its schedules with no
 * thread of its own; {@link #fireDue()} fires every queue's, for an instance that only schedules. A
 * slot is therefore run up to a poll interval of the queue's worker late. Slots that passed with
 * nothing firing follow the spec's {@link CatchUp} policy.
 */
public interface Schedules {
  /** The most slots {@link #upcoming} returns. */
  int MAX_UPCOMING = 100;

  /**
   * Registers a schedule unless one of that name is stored: same queue, spec and payload answer
   * {@link ScheduleResult.Status#UNCHANGED}; another answers {@link ScheduleResult.Status#CONFLICT}
   * and changes nothing. A new schedule's first slot is the first one after now (for a fixed rate
   * or delay: now).
   *
   * @param name the schedule's name, {@code [A-Za-z0-9][A-Za-z0-9._:-]{0,127}}
   * @param queue the queue its runs are sent to
   * @param spec when its runs are due
   * @param payload the payload of every run, serialized to JSON as for {@link JobQueue#send}
   * @return what happened, with the stored schedule
   * @throws dev.onceonly.InvalidRequestException for a bad name, queue, payload or cron expression
   */
  ScheduleResult register(String name, String queue, ScheduleSpec spec, Object payload);

  /**
   * Registers a schedule, or replaces the one of that name ({@link ScheduleResult.Status#UPDATED})
   * with its next slot recomputed from the new spec (never one at or before a slot already run, and
   * paused stays paused); the same definition answers {@link ScheduleResult.Status#UNCHANGED}. Runs
   * already sent stay queued.
   *
   * @param name the schedule's name
   * @param queue the queue its runs are sent to
   * @param spec when its runs are due
   * @param payload the payload of every run
   * @return what happened, with the stored schedule
   * @throws dev.onceonly.InvalidRequestException for a bad name, queue, payload or cron expression
   */
  ScheduleResult update(String name, String queue, ScheduleSpec spec, Object payload);

  /**
   * Pauses a schedule: no slot fires until {@link #resume}.
   *
   * @param name the schedule's name
   * @return whether a schedule of that name was running and is now paused
   */
  boolean pause(String name);

  /**
   * Resumes a paused schedule from the first slot after now: the slots of the pause are not caught
   * up.
   *
   * @param name the schedule's name
   * @return whether a schedule of that name was paused and now runs
   */
  boolean resume(String name);

  /**
   * Deletes a schedule. Runs already sent stay queued.
   *
   * @param name the schedule's name
   * @return whether a schedule of that name existed
   */
  boolean delete(String name);

  /**
   * Reads one schedule.
   *
   * @param name the schedule's name
   * @return the schedule, if registered
   */
  Optional<Schedule> find(String name);

  /** {@return every schedule, by name} */
  List<Schedule> list();

  /**
   * Lists a schedule's next slots, from its stored next slot on, computed by the same slot
   * arithmetic that fires it (a cron expression's slots in its zone, with its rule for
   * daylight-saving gaps and overlaps). A paused schedule has none: its next slot is chosen when it
   * resumes. A fixed delay has at most one, as each run waits for the one before it to leave.
   *
   * @param name the schedule's name
   * @param max the most slots to return, 1 to {@value #MAX_UPCOMING}
   * @return the slots, oldest first; empty for no such schedule
   * @throws IllegalArgumentException if {@code max} is out of bounds
   */
  List<Instant> upcoming(String name, int max);

  /**
   * Runs a schedule's next slot now, once. "Now" means: the run of {@code slot} (the message {@link
   * Schedule#runKey name&#64;slot}, named by its slot, not by the clock) is sent due now instead of
   * at the slot's time, and the schedule's next slot moves past it in the same write transaction,
   * so the slot is not fired again when its time comes. It happens only if {@code slot} is still
   * the schedule's next slot when the transaction runs, a compare-and-set like firing's: pressing
   * twice, two operators at once, or a receiver firing the same slot meanwhile send one run of it.
   * A paused schedule runs nothing.
   *
   * @param name the schedule's name
   * @param slot the slot the caller saw as next ({@link Schedule#nextRun()})
   * @return the send ({@link SendResult.Status#REPEATED} if a run of that key was still queued), or
   *     empty when {@code slot} is not the schedule's next slot any more (run already, paused,
   *     changed or deleted), and nothing was written
   */
  Optional<SendResult> runNow(String name, Instant slot);

  /**
   * Fires the due slots of every schedule, each schedule in a transaction of its own, and returns
   * the runs sent (a {@link SendResult.Status#REPEATED} when a slot's run was still queued).
   *
   * @return the sends, oldest slot first per schedule
   */
  List<SendResult> fireDue();
}
