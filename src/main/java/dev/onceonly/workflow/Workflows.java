package dev.onceonly.workflow;

import dev.onceonly.Outcome;
import dev.onceonly.queue.Handler;
import java.sql.Connection;
import java.util.List;
import java.util.Optional;

/**
 * Starts, finds, signals and cancels the runs of workflows, on the store's own tables; the steps
 * run on the {@link dev.onceonly.queue.Worker}s of their queues, each given {@link
 * #handler(StepHandler)}.
 *
 * <p>A run's id is unique in the store: starting it again with the same workflow and input answers
 * {@link Outcome.Repeated} with the run as it is, with another workflow or input {@link
 * Outcome.Conflict}, writing nothing. Thread-safe. Methods without a {@link Connection} join the
 * caller's transaction where {@link dev.onceonly.CurrentTransaction} finds one, else run in one of
 * their own.
 */
public interface Workflows {
  /**
   * Starts a run: its rows, and the messages of the steps that wait for nothing, in one transaction
   * (joining the caller's, see {@link dev.onceonly.CurrentTransaction}).
   *
   * @param workflow the definition
   * @param id the run's id: 1 to 128 of letters, digits and {@code . _ : -}
   * @param input the run's input (a Jackson tree or any value Jackson converts)
   * @return {@link Outcome.Created} with the new run, {@link Outcome.Repeated} with the existing
   *     one, or {@link Outcome.Conflict} (nothing written)
   * @throws dev.onceonly.InvalidRequestException if the id or input is not valid
   */
  Outcome<WorkflowRun> start(Workflow workflow, String id, Object input);

  /**
   * Starts a run inside the caller's open transaction: it exists if and only if that commits.
   *
   * @param transaction the caller's connection, inside a transaction
   * @param workflow the definition
   * @param id the run's id
   * @param input the run's input
   * @return as {@link #start(Workflow, String, Object)}, durable once the caller commits
   */
  Outcome<WorkflowRun> start(Connection transaction, Workflow workflow, String id, Object input);

  /**
   * Reads a run and each of its steps.
   *
   * @param id the run's id
   * @return the run, or empty if there is none
   */
  Optional<WorkflowRun> find(String id);

  /**
   * Lists runs in a state, oldest first.
   *
   * @param state the state
   * @param limit the most to return, from 1 to 1,000
   * @return the runs
   */
  List<WorkflowRun> list(WorkflowState state, int limit);

  /**
   * Delivers an outside event to the steps of a run that await it ({@link
   * Workflow.Builder#awaitSignal}), once: its payload is stored, and each such step is sent as soon
   * as its dependencies completed too.
   *
   * @param id the run's id
   * @param signal the signal's name
   * @param payload its payload, given to the steps (a Jackson tree or any value Jackson converts)
   * @return {@link SignalResult#DELIVERED}, {@link SignalResult#REPEATED} (a signal of that name
   *     was delivered before; nothing changed) or {@link SignalResult#NOT_AWAITED}
   */
  SignalResult signal(String id, String signal, Object payload);

  /**
   * Cancels a running run: its waiting and queued steps are stopped (their messages withdrawn; a
   * step being handled finds its step cancelled when it completes and changes nothing), and with
   * {@code compensate} its completed steps' compensations run, in reverse order of completion.
   *
   * @param id the run's id
   * @param compensate whether to undo the steps that completed
   * @return whether it was running and is now cancelled (or compensating)
   */
  boolean cancel(String id, boolean compensate);

  /**
   * Runs a failed or cancelled run again from where its effects stand, in one transaction (joining
   * the caller's, see {@link dev.onceonly.CurrentTransaction}) after the run's row lock:
   *
   * <ul>
   *   <li>a step that completed and was not undone (no compensation ran, or its compensation failed
   *       for good, which left the step's writes in place) stays {@link StepState#COMPLETED} with
   *       its stored result; its compensation is due again if the run fails again;
   *   <li>a step that {@link StepState#FAILED failed}, was {@link StepState#CANCELLED cancelled},
   *       or whose compensation {@link CompensationState#COMPLETED completed} is {@link
   *       StepState#WAITING} again, with its attempts set back to 0, its result, error and
   *       compensation cleared (the dead letter of a failed step keeps its error); a signal it
   *       received stays delivered;
   *   <li>the waiting steps whose dependencies are completed are sent, and the run is {@link
   *       WorkflowState#RUNNING}, its error cleared.
   * </ul>
   *
   * <p>The messages it sends have keys of their own ({@code wf:<run>:<step>.<generation>}), never
   * those of the earlier messages; a late delivery of an earlier message (a requeued dead letter,
   * say) is acknowledged and changes nothing. Of two retries at once, one does it and the other
   * answers false.
   *
   * @param id the run's id
   * @return whether the run was failed or cancelled and is now running; false (nothing changed) for
   *     a run that is running, compensating, completed, or unknown
   */
  boolean retry(String id);

  /**
   * Counts the runs in a state.
   *
   * @param state the state
   * @return how many runs are in it
   */
  long count(WorkflowState state);

  /**
   * Deletes finished runs (completed, failed or cancelled) whose state last changed before {@code
   * before}, with their steps, oldest first, at most {@code limit} in one transaction; call it
   * again until it answers less than {@code limit}. Once a run is deleted its id may be started
   * again. Running and compensating runs are never deleted.
   *
   * @param before the runs finished before this instant go
   * @param limit the most runs to delete, from 1 to 1,000
   * @return how many were deleted
   */
  int purgeFinished(java.time.Instant before, int limit);

  /**
   * Returns the queue handler for a {@link dev.onceonly.queue.Worker} of a queue that runs steps or
   * compensations: it runs {@code steps} for each of them as the run's state allows, and completes
   * the message with the step in one transaction. A step already completed, stopped or cancelled,
   * delivered again, is acknowledged without calling {@code steps}.
   *
   * @param steps what the queue's steps and compensations do
   * @return the handler
   */
  Handler handler(StepHandler steps);
}
