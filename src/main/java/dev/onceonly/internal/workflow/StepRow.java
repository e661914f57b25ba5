package dev.onceonly.internal.workflow;

import java.util.List;

/** One step of a run as read inside a transaction, changed in memory as the transaction goes. */
final class StepRow {
  /** A dependency as stored with the run. */
  record Dep(String step, boolean evenIfFailed) {}

  final String name;
  final String queue;
  final List<Dep> deps;
  int openDeps;
  String state;
  int attempts;
  String result;
  String error;
  Integer completedSeq;
  final String signalName;
  String signalPayload;
  final String compQueue;
  String compState;
  int compAttempts;
  String compError;

  StepRow(
      String name,
      String queue,
      List<Dep> deps,
      String state,
      String signalName,
      String compQueue) {
    this.name = name;
    this.queue = queue;
    this.deps = deps;
    this.openDeps = deps.size();
    this.state = state;
    this.signalName = signalName;
    this.compQueue = compQueue;
  }

  boolean dependsOn(String step) {
    return deps.stream().anyMatch(d -> d.step().equals(step));
  }
}
