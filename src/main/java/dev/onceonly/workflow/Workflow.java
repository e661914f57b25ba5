package dev.onceonly.workflow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The definition of a workflow: a name and a graph of steps, each run by the handler of a queue,
 * with the steps it waits for. Defined in code, immutable and thread-safe; a run keeps the shape it
 * started with.
 *
 * <pre>{@code
 * Workflow order = Workflow.named("order")
 *     .step("reserve", "stock").compensatedBy("stock-release")
 *     .step("charge", "payments").after("reserve").compensatedBy("payments-refund")
 *     .step("ship", "shipping").after("charge")
 *     .build();
 * }</pre>
 *
 * <p>A step without {@link Builder#after} starts with the run. A step with several dependencies (a
 * fan-in) is sent once the last of them settled; several steps after one (a fan-out) are sent
 * together when it completes.
 *
 * @param name the workflow's name
 * @param steps the steps, in the order they were declared
 */
public record Workflow(String name, List<Step> steps) {
  /** Names of workflows, steps and signals: 1 to 64 of letters, digits, {@code _} and {@code -}. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");

  /** The most steps of one workflow. */
  public static final int MAX_STEPS = 100;

  /**
   * Checks the graph: names valid and unique, dependencies declared before their dependents (so
   * there is no cycle), at most {@value #MAX_STEPS} steps.
   *
   * @param name the workflow's name
   * @param steps the steps
   * @throws IllegalArgumentException if the graph is not valid
   */
  public Workflow {
    check("workflow name", name);
    steps = List.copyOf(steps);
    if (steps.isEmpty() || steps.size() > MAX_STEPS) {
      throw new IllegalArgumentException("a workflow has 1 to " + MAX_STEPS + " steps");
    }
    Map<String, Step> seen = new LinkedHashMap<>();
    for (Step s : steps) {
      for (Dependency d : s.after()) {
        if (!seen.containsKey(d.step())) {
          throw new IllegalArgumentException(
              "step " + s.name() + " depends on " + d.step() + ", which is not declared before it");
        }
      }
      if (seen.put(s.name(), s) != null) {
        throw new IllegalArgumentException("step " + s.name() + " is declared twice");
      }
    }
  }

  /**
   * Starts a definition.
   *
   * @param name 1 to 64 of letters, digits, {@code _} and {@code -}
   * @return the builder
   */
  public static Builder named(String name) {
    return new Builder(check("workflow name", name));
  }

  /**
   * Returns the step of a name.
   *
   * @param name the step's name
   * @return the step
   * @throws IllegalArgumentException if there is none
   */
  public Step step(String name) {
    return steps.stream()
        .filter(s -> s.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no step " + name + " in " + this.name));
  }

  static String check(String field, String value) {
    Objects.requireNonNull(value, field);
    if (!NAME.matcher(value).matches()) {
      throw new IllegalArgumentException(
          field + " must be 1 to 64 of letters, digits, _ and -, got \"" + value + "\"");
    }
    return value;
  }

  /**
   * A step waits for another.
   *
   * @param step the step waited for
   * @param evenIfFailed whether this step runs even when that one failed for good (dead-lettered)
   *     instead of stopping the workflow; it then reads no result of it
   */
  public record Dependency(String step, boolean evenIfFailed) {
    /**
     * Checks the name.
     *
     * @param step the step waited for
     * @param evenIfFailed whether a failure of it lets this step run
     */
    public Dependency {
      check("dependency", step);
    }
  }

  /**
   * One step.
   *
   * @param name its name, unique in the workflow
   * @param queue the queue whose handler runs it
   * @param after the steps it waits for
   * @param compensationQueue the queue whose handler undoes it if the workflow fails after it
   *     completed, or null for none
   * @param signal the outside event it also waits for ({@link Workflows#signal}), or null for none
   */
  public record Step(
      String name, String queue, List<Dependency> after, String compensationQueue, String signal) {
    /**
     * Checks the names.
     *
     * @param name its name
     * @param queue the queue whose handler runs it
     * @param after the steps it waits for
     * @param compensationQueue the compensation's queue, or null
     * @param signal the signal it waits for, or null
     */
    public Step {
      check("step name", name);
      Objects.requireNonNull(queue, "queue");
      after = List.copyOf(after);
      if (signal != null) {
        check("signal", signal);
      }
    }
  }

  /** Builds a {@link Workflow}: each {@link #step} is followed by what applies to it. */
  public static final class Builder {
    private final String name;
    private final List<Step> steps = new ArrayList<>();

    private Builder(String name) {
      this.name = name;
    }

    /**
     * Adds a step; the calls that follow ({@link #after}, {@link #compensatedBy}, {@link
     * #awaitSignal}) apply to it.
     *
     * @param step the step's name, unique in the workflow
     * @param queue the queue whose worker runs it
     * @return this builder
     */
    public Builder step(String step, String queue) {
      steps.add(new Step(step, queue, List.of(), null, null));
      return this;
    }

    /**
     * Makes the last step wait for steps declared before it; a failure of one of them stops the
     * workflow.
     *
     * @param dependencies the steps it waits for
     * @return this builder
     */
    public Builder after(String... dependencies) {
      return depend(false, dependencies);
    }

    /**
     * Makes the last step wait for steps declared before it, and run even if one of them fails for
     * good (like Oban's {@code ignore_discarded}): the failure then does not stop the workflow.
     *
     * @param dependencies the steps it waits for
     * @return this builder
     */
    public Builder afterEvenIfFailed(String... dependencies) {
      return depend(true, dependencies);
    }

    private Builder depend(boolean evenIfFailed, String... dependencies) {
      Step s = last();
      List<Dependency> deps = new ArrayList<>(s.after());
      for (String d : dependencies) {
        deps.add(new Dependency(d, evenIfFailed));
      }
      return replace(new Step(s.name(), s.queue(), deps, s.compensationQueue(), s.signal()));
    }

    /**
     * Gives the last step a compensation: if the workflow fails (or is cancelled with
     * compensations) after this step completed, a message to {@code queue} undoes it; the
     * compensations run one at a time, in reverse order of completion, each once.
     *
     * @param queue the queue whose worker runs the compensation
     * @return this builder
     */
    public Builder compensatedBy(String queue) {
      Step s = last();
      return replace(new Step(s.name(), s.queue(), s.after(), queue, s.signal()));
    }

    /**
     * Makes the last step also wait for an outside event, delivered by {@link Workflows#signal}.
     *
     * @param signal the signal's name
     * @return this builder
     */
    public Builder awaitSignal(String signal) {
      Step s = last();
      return replace(new Step(s.name(), s.queue(), s.after(), s.compensationQueue(), signal));
    }

    private Step last() {
      if (steps.isEmpty()) {
        throw new IllegalStateException("declare a step first");
      }
      return steps.get(steps.size() - 1);
    }

    private Builder replace(Step s) {
      steps.set(steps.size() - 1, s);
      return this;
    }

    /**
     * {@return the definition}
     *
     * @throws IllegalArgumentException if the graph is not valid
     */
    public Workflow build() {
      return new Workflow(name, steps);
    }
  }
}
