package dev.onceonly.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.queue.Job;

/** What a {@link StepHandler} is given about the step it runs. Not thread-safe. */
public interface StepContext {
  /** {@return the run's id} */
  String workflowId();

  /** {@return the workflow's name} */
  String workflowName();

  /** {@return the step's name; for a compensation, the name of the step it undoes} */
  String step();

  /** {@return whether this is the compensation of {@link #step()}, not the step itself} */
  boolean compensation();

  /** {@return the input the run was started with} */
  JsonNode input();

  /**
   * Returns the stored result of a step of this run: one this step depends on, or for a
   * compensation the step it undoes. Read from the run's rows, never computed again.
   *
   * @param step the step's name
   * @return its result, or a JSON null if it has none (failed, or not completed)
   */
  JsonNode result(String step);

  /** {@return the payload of the signal this step awaited, or a JSON null} */
  JsonNode signal();

  /** {@return the job: its delivery (attempt number) and cancellation} */
  Job job();
}
