package dev.onceonly.internal.workflow;

import dev.onceonly.events.OnceOnlyEvent;
import java.util.ArrayList;
import java.util.List;

/** A run as read inside a transaction (its row and its steps), changed in memory as it goes. */
final class RunRow {
  final String id;
  final String name;
  final String fingerprint;
  final String input;
  String state;
  String finalState;
  int completions;
  String error;
  final long createdAt;
  long updatedAt;

  /** The W3C traceparent of the thread that started the run, carried by its steps' messages. */
  String traceparent;

  final List<StepRow> steps;

  /** What this transaction did to the run, published once it returned. */
  final List<OnceOnlyEvent> happened = new ArrayList<>();

  RunRow(
      String id,
      String name,
      String fingerprint,
      String input,
      String state,
      long createdAt,
      List<StepRow> steps) {
    this.id = id;
    this.name = name;
    this.fingerprint = fingerprint;
    this.input = input;
    this.state = state;
    this.createdAt = createdAt;
    this.updatedAt = createdAt;
    this.steps = steps;
  }

  StepRow step(String step) {
    for (StepRow s : steps) {
      if (s.name.equals(step)) {
        return s;
      }
    }
    return null;
  }
}
