package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.workflow.StepState;
import dev.onceonly.workflow.WorkflowRun;
import dev.onceonly.workflow.WorkflowState;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Lists workflow runs through {@link dev.onceonly.workflow.Workflows#list} and shows one through
 * {@link dev.onceonly.workflow.Workflows#find}; both only read.
 */
@Command(
    name = "workflows",
    description = "Lists workflow runs, or shows one run's steps.",
    subcommands = {WorkflowsCommand.ListCommand.class, WorkflowsCommand.Show.class})
final class WorkflowsCommand extends GroupCommand {

  @Command(name = "list", description = "Lists the runs in a state, oldest first.")
  static final class ListCommand extends OperatorCommand {
    @Option(
        names = "--state",
        paramLabel = "STATE",
        defaultValue = "RUNNING",
        description =
            "RUNNING, COMPENSATING, COMPLETED, FAILED or CANCELLED (default: ${DEFAULT-VALUE})")
    WorkflowState state;

    @Mixin Limit limit;

    @Override
    public Integer call() {
      try (OnceOnly once = target.open()) {
        // Workflows.list takes at most 1,000 in one read.
        List<WorkflowRun> runs = once.workflows().list(state, Math.min(limit.value(), 1_000));
        Table t = new Table("id", "workflow", "state", "steps done", "created", "updated", "error");
        for (WorkflowRun r : runs) {
          long done = r.steps().stream().filter(s -> s.state() == StepState.COMPLETED).count();
          t.add(
              r.id(),
              r.name(),
              r.state(),
              done + "/" + r.steps().size(),
              r.createdAt(),
              r.updatedAt(),
              r.error() == null ? "" : r.error());
        }
        print(
            Map.of("workflows", t.objects()),
            runs.size() + " " + state.name().toLowerCase(java.util.Locale.ROOT) + " run(s)",
            t);
        return 0;
      }
    }
  }

  @Command(name = "show", description = "Shows one run: each step's state, attempts and error.")
  static final class Show extends OperatorCommand {
    @Parameters(index = "0", paramLabel = "ID", description = "the run's id")
    String id;

    @Override
    public Integer call() {
      try (OnceOnly once = target.open()) {
        WorkflowRun run =
            once.workflows()
                .find(id)
                .orElseThrow(
                    () -> new CliException(CliException.NOT_FOUND, "no workflow run " + id));
        Table t = new Table("step", "queue", "state", "attempts", "compensation", "error");
        for (WorkflowRun.StepRun s : run.steps()) {
          t.add(
              s.name(),
              s.queue(),
              s.state(),
              s.attempts(),
              s.compensation().map(Enum::name).orElse(""),
              s.error() == null ? "" : s.error());
        }
        print(
            Map.of(
                "id",
                run.id(),
                "workflow",
                run.name(),
                "state",
                run.state().name(),
                "steps",
                t.objects()),
            run.id() + " (" + run.name() + "): " + run.state(),
            t);
        return 0;
      }
    }
  }
}
