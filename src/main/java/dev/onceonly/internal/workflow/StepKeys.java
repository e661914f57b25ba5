package dev.onceonly.internal.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.queue.Message;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The keys and payloads of the messages of steps and compensations. A run that was never retried
 * sends {@code wf:<run>:<step>} and {@code wfc:<run>:<step>}; a retry ({@link WorkflowRetry}) gives
 * the steps it sets waiting again a generation {@code g}, and their messages are then {@code
 * wf:<run>:<step>.<g>} with {@code "generation": g} in the payload, so that they never meet the
 * keys of the earlier messages (a queue may keep a key taken after its message is gone) and a late
 * delivery of an earlier message can be told apart. A step's name has no {@code :} and no {@code
 * .}, so the last {@code :} of a key ends the run's id and a {@code .} after it starts the
 * generation.
 *
 * <p>The generation is stored in the step's {@code comp_attempts} column until its compensation
 * settles (the column then holds the compensation's deliveries, as before): no message of the step
 * is alive after that until the next retry writes a new one.
 */
final class StepKeys {
  private StepKeys() {}

  /** A key read back: the run, the step, whether a compensation, and the generation. */
  record Ref(String id, String step, boolean compensation, int generation) {}

  static Message step(String id, StepRow s) {
    return Message.of(
        s.queue,
        key(WorkflowTransitions.STEP_PREFIX, id, s.name, s.compAttempts),
        payload(id, s.name, false, s.compAttempts));
  }

  static Message compensation(String id, StepRow s) {
    return Message.of(
        s.compQueue,
        key(WorkflowTransitions.COMPENSATION_PREFIX, id, s.name, s.compAttempts),
        payload(id, s.name, true, s.compAttempts));
  }

  /** The key of a step's message of generation {@code generation}. */
  static String stepKey(String id, String step, int generation) {
    return key(WorkflowTransitions.STEP_PREFIX, id, step, generation);
  }

  private static String key(String prefix, String id, String step, int generation) {
    return prefix + id + ":" + step + (generation == 0 ? "" : "." + generation);
  }

  private static Map<String, Object> payload(
      String id, String step, boolean compensation, int generation) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("workflow", id);
    p.put("step", step);
    p.put("compensation", compensation);
    if (generation != 0) {
      p.put("generation", generation);
    }
    return p;
  }

  /** The generation a message's payload was sent with (0 if it names none). */
  static int generation(JsonNode payload) {
    return payload.path("generation").asInt(0);
  }

  /** Whether a message of {@code generation} is the current one of {@code step}. */
  static boolean current(StepRow step, int generation) {
    return step.compAttempts == generation;
  }

  /** Reads a key back, or null if it is not a step's or a compensation's. */
  static Ref parse(String key) {
    boolean compensation = key.startsWith(WorkflowTransitions.COMPENSATION_PREFIX);
    if (!compensation && !key.startsWith(WorkflowTransitions.STEP_PREFIX)) {
      return null;
    }
    String rest =
        key.substring(
            (compensation
                    ? WorkflowTransitions.COMPENSATION_PREFIX
                    : WorkflowTransitions.STEP_PREFIX)
                .length());
    int colon = rest.lastIndexOf(':');
    if (colon <= 0) {
      return null;
    }
    String step = rest.substring(colon + 1);
    int generation = 0;
    int dot = step.indexOf('.');
    if (dot >= 0) {
      try {
        generation = Integer.parseInt(step.substring(dot + 1));
      } catch (NumberFormatException e) {
        return null;
      }
      step = step.substring(0, dot);
    }
    return new Ref(rest.substring(0, colon), step, compensation, generation);
  }
}
