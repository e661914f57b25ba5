package dev.onceonly.internal.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.workflow.CompensationState;
import dev.onceonly.workflow.StepState;
import dev.onceonly.workflow.Workflow;
import dev.onceonly.workflow.WorkflowRun;
import dev.onceonly.workflow.WorkflowState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads and writes the run and step rows; every method runs on the caller's connection. */
final class WorkflowRows {
  private final StoreContext core;
  private final InstantColumns times;
  final WorkflowStatements sql;

  WorkflowRows(StoreContext core, String prefix) {
    this.core = core;
    this.times = core.times();
    this.sql = new WorkflowStatements(prefix, core.database().sql());
  }

  long now() {
    return core.clock().millis();
  }

  /** Inserts a new run's row; false if the id is taken. */
  boolean insertRun(Connection c, RunRow run) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.insertRun)) {
      ps.setString(1, run.id);
      ps.setString(2, run.name);
      ps.setString(3, run.fingerprint);
      ps.setString(4, run.input);
      times.set(ps, 5, run.createdAt);
      times.set(ps, 6, run.createdAt);
      ps.setString(7, run.traceparent);
      return ps.executeUpdate() == 1;
    }
  }

  void insertStep(Connection c, String id, int position, Workflow.Step step, String state, long at)
      throws SQLException {
    ArrayNode deps = JsonNodeFactory.instance.arrayNode();
    for (Workflow.Dependency d : step.after()) {
      deps.addObject().put("step", d.step()).put("evenIfFailed", d.evenIfFailed());
    }
    try (PreparedStatement ps = c.prepareStatement(sql.insertStep)) {
      ps.setString(1, id);
      ps.setString(2, step.name());
      ps.setInt(3, position);
      ps.setString(4, step.queue());
      ps.setString(5, deps.toString());
      ps.setInt(6, step.after().size());
      ps.setString(7, state);
      ps.setString(8, step.signal());
      ps.setString(9, step.compensationQueue());
      times.set(ps, 10, at);
      ps.executeUpdate();
    }
  }

  /** Takes the run's row lock, held until the transaction ends; false if there is no such run. */
  boolean lock(Connection c, String id) throws SQLException {
    return update(c, sql.lockRun, id) == 1;
  }

  /**
   * Takes the run's row lock for a step's completion, counting it ({@link RunRow#completions} is
   * then this completion's place); false if there is no such run.
   */
  boolean lockCounting(Connection c, String id) throws SQLException {
    return update(c, sql.lockRunCounting, id) == 1;
  }

  /** Reads a run and its steps in one query, or null. */
  RunRow load(Connection c, String id) throws SQLException {
    RunRow run = null;
    try (PreparedStatement ps = c.prepareStatement(sql.selectRunAndSteps)) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (run == null) {
            run =
                new RunRow(
                    id,
                    rs.getString(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getString(4),
                    times.get(rs, 8),
                    new ArrayList<>());
            run.finalState = rs.getString(5);
            run.completions = rs.getInt(6);
            run.error = rs.getString(7);
            run.updatedAt = times.get(rs, 9);
            run.traceparent = rs.getString(25);
          }
          run.steps.add(step(rs, 9));
        }
      }
    }
    return run;
  }

  /** Reads a step from the columns after {@code at}. */
  private StepRow step(ResultSet rs, int at) throws SQLException {
    List<StepRow.Dep> deps = new ArrayList<>();
    for (JsonNode d : core.readTree(rs.getString(at + 3))) {
      deps.add(new StepRow.Dep(d.get("step").asText(), d.get("evenIfFailed").asBoolean()));
    }
    StepRow s =
        new StepRow(
            rs.getString(at + 1),
            rs.getString(at + 2),
            deps,
            rs.getString(at + 5),
            rs.getString(at + 10),
            rs.getString(at + 12));
    s.openDeps = rs.getInt(at + 4);
    s.attempts = rs.getInt(at + 6);
    s.result = rs.getString(at + 7);
    s.error = rs.getString(at + 8);
    int seq = rs.getInt(at + 9);
    s.completedSeq = rs.wasNull() ? null : seq;
    s.signalPayload = rs.getString(at + 11);
    s.compState = rs.getString(at + 13);
    s.compAttempts = rs.getInt(at + 14);
    s.compError = rs.getString(at + 15);
    return s;
  }

  /** The queued steps of a run, as (step, queue, message key) triples. */
  List<String[]> queued(Connection c, String id) throws SQLException {
    List<String[]> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.queuedSteps)) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new String[] {
                rs.getString(1),
                rs.getString(2),
                StepKeys.stepKey(id, rs.getString(1), rs.getInt(3))
              });
        }
      }
    }
    return out;
  }

  /** The finished runs whose state last changed before {@code millis}, oldest first. */
  List<String> finishedBefore(Connection c, long millis, int limit) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.finishedBefore)) {
      times.set(ps, 1, millis);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  List<String> ids(Connection c, WorkflowState state, int limit) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.listRuns)) {
      ps.setString(1, state.name());
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  long count(Connection c, WorkflowState state) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.countRuns)) {
      ps.setString(1, state.name());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  void setState(Connection c, RunRow run, String state, String finalState, String error)
      throws SQLException {
    if (!state.equals(run.state)) {
      run.happened.add(
          new OnceOnlyEvent.WorkflowRunChanged(
              run.name, state.toLowerCase(java.util.Locale.ROOT), run.traceparent));
    }
    run.state = state;
    run.finalState = finalState;
    run.error = error;
    run.updatedAt = now();
    try (PreparedStatement ps = c.prepareStatement(sql.setRunState)) {
      ps.setString(1, state);
      ps.setString(2, finalState);
      ps.setString(3, error);
      times.set(ps, 4, run.updatedAt);
      ps.setString(5, run.id);
      ps.executeUpdate();
    }
  }

  /**
   * Runs a conditional update of one step whose parameters are {@code values} (strings, integers,
   * or a Long for a time), then the run's id and the step's name; returns the rows it changed.
   */
  int updateStep(Connection c, String statement, RunRow run, StepRow step, Object... values)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      int i = bind(ps, values);
      ps.setString(i++, run.id);
      ps.setString(i, step.name);
      return ps.executeUpdate();
    }
  }

  /** Runs an update whose parameters are {@code values}, then the run's id. */
  int updateRun(Connection c, String statement, String id, Object... values) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      ps.setString(bind(ps, values), id);
      return ps.executeUpdate();
    }
  }

  private int update(Connection c, String statement, String id) throws SQLException {
    return updateRun(c, statement, id);
  }

  private int bind(PreparedStatement ps, Object... values) throws SQLException {
    int i = 1;
    for (Object v : values) {
      if (v instanceof Long time) {
        times.set(ps, i++, time);
      } else if (v instanceof Integer n) {
        ps.setInt(i++, n);
      } else if (v == null) {
        ps.setNull(i++, Types.VARCHAR);
      } else {
        ps.setString(i++, (String) v);
      }
    }
    return i;
  }

  /** The public view of a run. */
  WorkflowRun view(RunRow run) {
    List<WorkflowRun.StepRun> steps = new ArrayList<>();
    for (StepRow s : run.steps) {
      steps.add(
          new WorkflowRun.StepRun(
              s.name,
              s.queue,
              StepState.valueOf(s.state),
              s.attempts,
              tree(s.result),
              s.error,
              Optional.ofNullable(s.compState).map(CompensationState::valueOf),
              s.deps.stream().map(StepRow.Dep::step).toList()));
    }
    return new WorkflowRun(
        run.id,
        run.name,
        WorkflowState.valueOf(run.state),
        tree(run.input),
        run.error,
        Instant.ofEpochMilli(run.createdAt),
        Instant.ofEpochMilli(run.updatedAt),
        steps);
  }

  JsonNode tree(String json) {
    return json == null ? NullNode.getInstance() : core.readTree(json);
  }
}
