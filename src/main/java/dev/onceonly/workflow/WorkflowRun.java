package dev.onceonly.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A run of a workflow as its rows hold it.
 *
 * @param id the run's id
 * @param name the workflow's name
 * @param state where it is
 * @param input the input it was started with
 * @param error the failure that stopped it, or null
 * @param createdAt when it was started
 * @param updatedAt when its state last changed
 * @param steps its steps, in the order of the definition
 */
public record WorkflowRun(
    String id,
    String name,
    WorkflowState state,
    JsonNode input,
    String error,
    Instant createdAt,
    Instant updatedAt,
    List<StepRun> steps) {
  /**
   * Refuses null components other than the error.
   *
   * @param id the run's id
   * @param name the workflow's name
   * @param state where it is
   * @param input the input
   * @param error the failure, or null
   * @param createdAt when it was started
   * @param updatedAt when its state last changed
   * @param steps its steps
   */
  public WorkflowRun {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
    steps = List.copyOf(steps);
  }

  /**
   * Returns one step.
   *
   * @param name the step's name
   * @return the step
   * @throws IllegalArgumentException if the run has no such step
   */
  public StepRun step(String name) {
    return steps.stream()
        .filter(s -> s.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no step " + name + " in " + id));
  }

  /**
   * One step of a run.
   *
   * @param name the step's name
   * @param queue the queue that runs it
   * @param state where it is
   * @param attempts the deliveries its handler got, as of its completion or failure (0 before)
   * @param result its stored result, a JSON null if none
   * @param error why it failed, or null
   * @param compensation where its compensation is, or empty if none is due
   * @param after the steps it waits for, as the run stored them
   */
  public record StepRun(
      String name,
      String queue,
      StepState state,
      int attempts,
      JsonNode result,
      String error,
      Optional<CompensationState> compensation,
      List<String> after) {
    /**
     * Refuses null components other than the error.
     *
     * @param name the step's name
     * @param queue the queue that runs it
     * @param state where it is
     * @param attempts the deliveries its handler got
     * @param result its result
     * @param error why it failed, or null
     * @param compensation its compensation's state
     * @param after the steps it waits for
     */
    public StepRun {
      after = List.copyOf(after);
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(queue, "queue");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(result, "result");
      Objects.requireNonNull(compensation, "compensation");
    }
  }
}
