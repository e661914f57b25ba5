package dev.onceonly.workflow;

import java.sql.Connection;

/**
 * Runs one step (or one compensation) of a workflow inside the transaction that records it done:
 * its writes on {@code transaction}, the step's completion with the value it returns, the
 * acknowledgement of its message and the sends of the steps it made due commit together or not at
 * all. Called at most once per committed step; a call whose transaction rolled back (a throw, a
 * crash, a lost lease) left nothing, and the step is delivered again.
 */
@FunctionalInterface
public interface StepHandler {
  /**
   * Runs the step.
   *
   * @param step which step, with the run's input and the results of the steps it depends on
   * @param transaction the transaction's connection; do not commit, roll back or close it
   * @return the step's result, stored and given to its dependents (a Jackson tree or any value
   *     Jackson converts; null for none)
   * @throws Exception to have the step retried with the queue's retry policy; once its attempts are
   *     spent (or at once for {@link dev.onceonly.InvalidRequestException}) the step failed
   */
  Object run(StepContext step, Connection transaction) throws Exception;
}
