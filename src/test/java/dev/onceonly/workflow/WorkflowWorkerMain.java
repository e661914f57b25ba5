package dev.onceonly.workflow;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.ChildArgs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A worker process for the workflow crash and race tests: workers on {@value #STEPS} and {@value
 * #UNDO} running {@link WorkflowContractSupport#EFFECT} (each step and compensation writes its
 * {@code effects} row in its completion's transaction), except that a step named {@code e} of a run
 * whose id ends in {@code -fail} fails for good, so that its run compensates. Arguments, as {@code
 * name=value}: {@code file} (a SQLite file) or {@code url} (a PostgreSQL or MariaDB JDBC URL),
 * {@code threads} (default 2) and {@code leaseMs} (default 1,000). Prints {@code ready} once its
 * workers run, and runs until killed or stdin closes.
 */
public final class WorkflowWorkerMain {
  static final String STEPS = "wf-steps";
  static final String UNDO = "wf-undo";

  /** Five steps in a chain; the first four are undone if the last fails. */
  static final Workflow FIVE =
      Workflow.named("five")
          .step("a", STEPS)
          .compensatedBy(UNDO)
          .step("b", STEPS)
          .after("a")
          .compensatedBy(UNDO)
          .step("c", STEPS)
          .after("b")
          .compensatedBy(UNDO)
          .step("d", STEPS)
          .after("c")
          .compensatedBy(UNDO)
          .step("e", STEPS)
          .after("d")
          .build();

  /** What the child's steps do. */
  static final StepHandler STEP =
      (step, tx) -> {
        if (!step.compensation()
            && step.step().equals("e")
            && step.workflowId().endsWith("-fail")) {
          throw new InvalidRequestException("e", "refused for good");
        }
        return WorkflowContractSupport.EFFECT.run(step, tx);
      };

  private WorkflowWorkerMain() {}

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    int threads = Integer.parseInt(args.get("threads", "2"));
    Duration lease = Duration.ofMillis(Long.parseLong(args.get("leaseMs", "1000")));
    HikariDataSource pool = null;
    OnceOnly once;
    if (!args.get("file", "").isEmpty()) {
      once = OnceOnly.builder().sqlite(Path.of(args.required("file"))).build();
    } else {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(args.required("url"));
      if (args.required("url").startsWith("jdbc:postgresql:")) {
        config.setUsername("postgres"); // a MariaDB URL names its user
      }
      config.setMaximumPoolSize(threads * 2 + 2);
      pool = new HikariDataSource(config);
      once = OnceOnly.builder().dataSource(pool).build();
    }
    List<Worker> workers =
        List.of(STEPS, UNDO).stream()
            .map(
                q ->
                    Worker.builder(once.queue(), q, once.workflows().handler(STEP))
                        .threads(threads)
                        .lease(lease)
                        .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(50))
                        .build()
                        .start())
            .toList();
    System.out.println("ready pid=" + ProcessHandle.current().pid());
    System.out.flush();
    while (System.in.read() >= 0) {
      // runs until stdin closes or the process is killed
    }
    workers.forEach(Worker::close);
    once.close();
    if (pool != null) {
      pool.close();
    }
  }
}
