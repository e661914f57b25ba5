package dev.onceonly.cli;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnlyException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code onceonly} command-line tool: the demo, and commands to look inside a store and act on
 * what needs a person (dead letters, unknown external effects, retention).
 *
 * <p>Every command prints one line to stderr and exits with a non-zero status on failure, without a
 * stack trace: 1 a failed check, 2 a usage error (a scope or key that is not valid too), 3 not
 * found, 4 database unreachable (no driver, a wrong URL) or picocli missing, 5 schema missing,
 * older or newer, 6 a store error.
 */
@Command(
    name = "onceonly",
    // inherited: every subcommand answers --help and --version too
    scope = CommandLine.ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = BuildVersion.class,
    description = "Runs the demo, and looks inside an OnceOnly store.",
    subcommands = {
      DemoCommand.class,
      StatusCommand.class,
      PendingCommand.class,
      ReceiptsCommand.class,
      DeadLettersCommand.class,
      SchedulesCommand.class,
      QueuesCommand.class,
      UnknownCommand.class,
      PurgeCommand.class,
      MigrateCommand.class,
      VerifyCommand.class,
      DashboardCommand.class,
      CrashTestCommand.class,
      WorkflowsCommand.class
    })
public final class Main implements Runnable {
  @Spec CommandSpec spec;

  private Main() {}

  /**
   * Runs the tool and exits with its status.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    try {
      Class.forName("picocli.CommandLine", false, Main.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      System.err.println(
          "onceonly: picocli is missing (an optional dependency of the library): put"
              + " info.picocli:picocli on the class path, or run target/onceonly-cli.jar");
      System.exit(CliException.UNREACHABLE);
    }
    System.exit(run(args, System.out, System.err));
  }

  /**
   * Runs the tool in this process, for tests and embedding.
   *
   * @param args the command line
   * @param out where results go
   * @param err where errors go
   * @return the exit status, 0 on success
   */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    PrintWriter o = new PrintWriter(out, true, StandardCharsets.UTF_8);
    PrintWriter e = new PrintWriter(err, true, StandardCharsets.UTF_8);
    CommandLine cl = new CommandLine(new Main());
    cl.setOut(o);
    cl.setErr(e);
    cl.setExecutionExceptionHandler(
        (ex, line, parsed) -> {
          line.getErr().println("onceonly: " + message(ex));
          line.getErr().flush();
          return exitCode(ex);
        });
    cl.setParameterExceptionHandler(
        (ex, argv) -> {
          CommandLine at = ex.getCommandLine();
          at.getErr().println("onceonly: " + Target.firstLine(ex.getMessage()));
          at.getErr().println("try: " + at.getCommandSpec().qualifiedName() + " --help");
          at.getErr().flush();
          return CliException.USAGE;
        });
    int status = cl.execute(args);
    o.flush();
    e.flush();
    return status;
  }

  private static String message(Exception ex) {
    if (ex instanceof CliException || ex instanceof OnceOnlyException) {
      return Target.firstLine(ex.getMessage());
    }
    return ex.getClass().getSimpleName() + ": " + Target.firstLine(ex.getMessage());
  }

  private static int exitCode(Exception ex) {
    if (ex instanceof CliException c) {
      return c.exitCode();
    }
    if (ex instanceof IllegalArgumentException || ex instanceof InvalidRequestException) {
      return CliException.USAGE;
    }
    return CliException.STORE;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
