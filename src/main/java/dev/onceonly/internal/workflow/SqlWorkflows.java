package dev.onceonly.internal.workflow;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.Outcome;
import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.internal.queue.SqlJobQueue;
import dev.onceonly.internal.receipts.RequestPreparer;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Job;
import dev.onceonly.queue.Lease;
import dev.onceonly.workflow.SignalResult;
import dev.onceonly.workflow.StepHandler;
import dev.onceonly.workflow.Workflow;
import dev.onceonly.workflow.WorkflowRun;
import dev.onceonly.workflow.WorkflowState;
import dev.onceonly.workflow.Workflows;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/** The {@link Workflows} on SQL, on the store's database and job queue. */
public final class SqlWorkflows implements Workflows {
  private final StoreContext core;
  private final SqlJobQueue queue;
  private final WorkflowRows rows;
  private final WorkflowTransitions moves;
  private final Events events;
  private final WorkflowRetry retries;

  /**
   * Creates the workflows and hooks them into the queue's dead letters.
   *
   * @param core the shared database, clock and mapper
   * @param prefix the validated table prefix
   * @param queue the job queue the steps' messages go through
   */
  public SqlWorkflows(StoreContext core, String prefix, SqlJobQueue queue) {
    this.core = core;
    this.queue = queue;
    this.rows = new WorkflowRows(core, prefix);
    this.moves = new WorkflowTransitions(rows, queue);
    this.events = core.events();
    this.retries = new WorkflowRetry(prefix, rows, moves);
    queue.onDeadLetter(this::deadLettered);
  }

  @Override
  public Outcome<WorkflowRun> start(Workflow workflow, String id, Object input) {
    RequestPreparer.Prepared p = prepare(workflow, id, input);
    AtomicReference<RunRow> touched = new AtomicReference<>();
    Outcome<WorkflowRun> started =
        core.database().writeOrJoin(c -> startIn(c, workflow, p, touched));
    publish(touched.get());
    return started;
  }

  @Override
  public Outcome<WorkflowRun> start(
      Connection transaction, Workflow workflow, String id, Object input) {
    Objects.requireNonNull(transaction, "transaction");
    RequestPreparer.Prepared p = prepare(workflow, id, input);
    AtomicReference<RunRow> touched = new AtomicReference<>();
    Outcome<WorkflowRun> started =
        core.database().join(transaction, c -> startIn(c, workflow, p, touched));
    publish(touched.get()); // before the caller commits, as the queue's sends are
    return started;
  }

  private RequestPreparer.Prepared prepare(Workflow workflow, String id, Object input) {
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(input, "input");
    RequestPreparer.Prepared p =
        core.requests().prepare(IntentKey.of(workflow.name(), id), "workflow", input);
    String longest = WorkflowTransitions.COMPENSATION_PREFIX + id + ":";
    if (longest.length() + 64 > 300) {
      throw new InvalidRequestException("id", "is too long for a step's message key");
    }
    return p;
  }

  private Outcome<WorkflowRun> startIn(
      Connection c, Workflow workflow, RequestPreparer.Prepared p, AtomicReference<RunRow> touched)
      throws SQLException {
    touched.set(null); // a transaction tried again starts over
    String id = p.key().key();
    // The workflow's name is part of what the id stands for: the same id and input under another
    // workflow is another intent.
    Fingerprint fp = fingerprint(workflow, p);
    long now = rows.now();
    RunRow run =
        new RunRow(
            id,
            workflow.name(),
            fp.toString(),
            p.canonicalArguments(),
            "RUNNING",
            now,
            new ArrayList<>());
    run.traceparent = core.traceparent();
    if (!rows.insertRun(c, run)) {
      RunRow existing = rows.load(c, id);
      Fingerprint stored = Fingerprint.parse(existing.fingerprint);
      if (!stored.equals(fp)) {
        return new Outcome.Conflict<>(p.key(), stored, fp);
      }
      return new Outcome.Repeated<>(
          p.key(), fp, rows.view(existing), Instant.ofEpochMilli(existing.createdAt));
    }
    touched.set(run);
    run.happened.add(
        new OnceOnlyEvent.WorkflowRunChanged(workflow.name(), "running", run.traceparent));
    List<Workflow.Step> steps = workflow.steps();
    for (int i = 0; i < steps.size(); i++) {
      Workflow.Step s = steps.get(i);
      rows.insertStep(c, id, i, s, "WAITING", now);
      List<StepRow.Dep> deps =
          s.after().stream().map(d -> new StepRow.Dep(d.step(), d.evenIfFailed())).toList();
      run.steps.add(
          new StepRow(s.name(), s.queue(), deps, "WAITING", s.signal(), s.compensationQueue()));
    }
    for (StepRow s : run.steps) {
      if (s.deps.isEmpty() && s.signalName == null) {
        moves.queueStep(c, run, s);
      }
    }
    return new Outcome.Created<>(p.key(), fp, rows.view(run), Instant.ofEpochMilli(now));
  }

  private static Fingerprint fingerprint(Workflow workflow, RequestPreparer.Prepared p) {
    return dev.onceonly.internal.jcs.Fingerprints.of(
        "workflow:" + workflow.name(),
        p.canonicalArguments().getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @Override
  public Optional<WorkflowRun> find(String id) {
    Objects.requireNonNull(id, "id");
    return core.database().read(c -> Optional.ofNullable(rows.load(c, id)).map(rows::view));
  }

  @Override
  public List<WorkflowRun> list(WorkflowState state, int limit) {
    Objects.requireNonNull(state, "state");
    if (limit < 1 || limit > 1000) {
      throw new IllegalArgumentException("limit must be between 1 and 1000");
    }
    return core.database()
        .read(
            c -> {
              List<WorkflowRun> out = new ArrayList<>();
              for (String id : rows.ids(c, state, limit)) {
                RunRow run = rows.load(c, id);
                if (run != null) {
                  out.add(rows.view(run));
                }
              }
              return out;
            });
  }

  @Override
  public SignalResult signal(String id, String signal, Object payload) {
    Objects.requireNonNull(id, "id");
    Workflow.Dependency named = new Workflow.Dependency(signal, false); // checks the name
    JsonNode tree = core.requests().toTree(payload, "payload");
    String json =
        new String(
            core.requests().canonicalizer().canonicalize(tree),
            java.nio.charset.StandardCharsets.UTF_8);
    AtomicReference<RunRow> touched = new AtomicReference<>();
    SignalResult result =
        core.database().writeOrJoin(c -> signalIn(c, id, named.step(), json, touched));
    publish(touched.get());
    return result;
  }

  private SignalResult signalIn(
      Connection c, String id, String signal, String json, AtomicReference<RunRow> touched)
      throws SQLException {
    touched.set(null);
    if (!rows.lock(c, id)) {
      return SignalResult.NOT_AWAITED;
    }
    RunRow run = rows.load(c, id);
    touched.set(run);
    List<StepRow> awaiting = run.steps.stream().filter(s -> signal.equals(s.signalName)).toList();
    if (awaiting.isEmpty()) {
      return SignalResult.NOT_AWAITED;
    }
    if (awaiting.stream().anyMatch(s -> s.signalPayload != null)) {
      return SignalResult.REPEATED;
    }
    if (!"RUNNING".equals(run.state)) {
      return SignalResult.NOT_AWAITED;
    }
    rows.updateRun(c, rows.sql.storeSignal, id, json, rows.now(), signal);
    for (StepRow s : awaiting) {
      s.signalPayload = json;
    }
    moves.advance(c, run, null);
    return SignalResult.DELIVERED;
  }

  @Override
  public boolean cancel(String id, boolean compensate) {
    Objects.requireNonNull(id, "id");
    AtomicReference<RunRow> touched = new AtomicReference<>();
    boolean cancelled =
        core.database()
            .writeOrJoin(
                c -> {
                  touched.set(null);
                  // Withdraw first, as a completion takes its message before the run's row: taking
                  // the row first and then a message a completion holds would be a deadlock.
                  withdrawQueued(c, id);
                  if (!rows.lock(c, id)) {
                    return false;
                  }
                  RunRow run = rows.load(c, id);
                  if (!"RUNNING".equals(run.state)) {
                    return false;
                  }
                  touched.set(run);
                  withdrawQueued(c, id); // queued between the first withdrawal and the lock
                  if (compensate) {
                    moves.stop(c, run, "CANCELLED", "cancelled");
                  } else {
                    moves.cancelWaiting(c, run);
                    rows.setState(c, run, "CANCELLED", null, "cancelled");
                  }
                  return true;
                });
    publish(touched.get());
    return cancelled;
  }

  /** Publishes what a transaction that returned did to a run (nothing if it touched none). */
  private void publish(RunRow run) {
    if (run != null && events.enabled()) {
      run.happened.forEach(events::publish);
    }
  }

  private void withdrawQueued(Connection c, String id) throws SQLException {
    for (String[] s : rows.queued(c, id)) {
      queue.withdrawIn(c, s[1], s[2]);
    }
  }

  @Override
  public long count(WorkflowState state) {
    Objects.requireNonNull(state, "state");
    return core.database().read(c -> rows.count(c, state));
  }

  @Override
  public boolean retry(String id) {
    Objects.requireNonNull(id, "id");
    AtomicReference<RunRow> touched = new AtomicReference<>();
    boolean retried = core.database().writeOrJoin(c -> retries.retry(c, id, touched));
    publish(touched.get());
    return retried;
  }

  @Override
  public int purgeFinished(Instant before, int limit) {
    Objects.requireNonNull(before, "before");
    if (limit < 1 || limit > 1000) {
      throw new IllegalArgumentException("limit must be between 1 and 1000");
    }
    return core.database()
        .write(
            c -> {
              int deleted = 0;
              for (String id : rows.finishedBefore(c, before.toEpochMilli(), limit)) {
                // The run's row first: a run that is not finished (it cannot change back, but
                // this keeps the rule in the statement) keeps its steps.
                if (rows.updateRun(c, rows.sql.deleteRun, id) == 1) {
                  rows.updateRun(c, rows.sql.deleteSteps, id);
                  deleted++;
                }
              }
              return deleted;
            });
  }

  @Override
  public Handler handler(StepHandler steps) {
    Objects.requireNonNull(steps, "steps");
    return job -> {
      JsonNode p = job.payload();
      JsonNode id = p.get("workflow");
      JsonNode step = p.get("step");
      if (id == null || !id.isTextual() || step == null || !step.isTextual()) {
        throw new InvalidRequestException("payload", "is not a workflow step's message");
      }
      boolean compensation = p.path("compensation").asBoolean(false);
      AtomicReference<RunRow> touched = new AtomicReference<>();
      job.completeWith(
          tx -> {
            touched.set(null);
            touched.set(run(tx, job, id.asText(), step.asText(), compensation, steps));
            return null;
          });
      publish(touched.get());
    };
  }

  /**
   * Runs a step inside its completion's transaction, if the run's state still calls for it; else
   * the message is acknowledged with nothing else changed (a late or repeated delivery, a step
   * stopped or cancelled meanwhile).
   */
  private RunRow run(
      Connection tx, Job job, String id, String name, boolean compensation, StepHandler steps)
      throws Exception {
    if (!rows.lockCounting(tx, id)) {
      return null;
    }
    RunRow run = rows.load(tx, id);
    StepRow step = run.step(name);
    if (step == null) {
      return null;
    }
    if (!StepKeys.current(step, StepKeys.generation(job.payload()))) {
      return null; // a message of an earlier try of a retried run
    }
    int attempt = job.delivery().attempt();
    Context context = new Context(rows, run, step, compensation, job);
    if (compensation) {
      if (!"COMPENSATING".equals(run.state) || !"QUEUED".equals(step.compState)) {
        return null;
      }
      long began = System.nanoTime();
      steps.run(context, tx);
      moves.compensated(tx, run, step, attempt, Duration.ofNanos(System.nanoTime() - began));
      return run;
    }
    if (!"RUNNING".equals(run.state) || !"QUEUED".equals(step.state)) {
      return null;
    }
    long began = System.nanoTime();
    Object result = steps.run(context, tx);
    Duration ran = Duration.ofNanos(System.nanoTime() - began);
    String json = result == null ? null : core.requests().toTree(result, "result").toString();
    moves.completed(tx, run, step, json, attempt, ran);
    return run;
  }

  /** Fails the step (or compensation) whose message was dead-lettered, in the same transaction. */
  private void deadLettered(Connection c, Lease lease, int attempts, String error)
      throws SQLException {
    StepKeys.Ref ref = StepKeys.parse(lease.key());
    if (ref == null || !rows.lock(c, ref.id())) {
      return;
    }
    boolean compensation = ref.compensation();
    RunRow run = rows.load(c, ref.id());
    StepRow step = run.step(ref.step());
    if (step == null || !StepKeys.current(step, ref.generation())) {
      return;
    }
    if (compensation) {
      if (lease.queue().equals(step.compQueue)) {
        moves.compensationFailed(c, run, step, error, attempts);
      }
    } else if (lease.queue().equals(step.queue)) {
      moves.failed(c, run, step, error, attempts);
    }
    // Inside the transaction that moves the message to the dead letters, which commits as the
    // hook returns: the queue's own dead_lettered settlement is published after it.
    publish(run);
  }

  /** What a step's handler is given. */
  private static final class Context implements dev.onceonly.workflow.StepContext {
    private final WorkflowRows rows;
    private final RunRow run;
    private final StepRow step;
    private final boolean compensation;
    private final Job job;

    Context(WorkflowRows rows, RunRow run, StepRow step, boolean compensation, Job job) {
      this.rows = rows;
      this.run = run;
      this.step = step;
      this.compensation = compensation;
      this.job = job;
    }

    @Override
    public String workflowId() {
      return run.id;
    }

    @Override
    public String workflowName() {
      return run.name;
    }

    @Override
    public String step() {
      return step.name;
    }

    @Override
    public boolean compensation() {
      return compensation;
    }

    @Override
    public JsonNode input() {
      return rows.tree(run.input);
    }

    @Override
    public JsonNode result(String name) {
      StepRow s = run.step(name);
      return rows.tree(s == null ? null : s.result);
    }

    @Override
    public JsonNode signal() {
      return rows.tree(step.signalPayload);
    }

    @Override
    public Job job() {
      return job;
    }
  }
}
