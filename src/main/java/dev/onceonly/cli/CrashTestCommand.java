package dev.onceonly.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.testing.Fault;
import dev.onceonly.testing.FaultReport;
import dev.onceonly.testing.FaultRun;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Runs {@link FaultRun} on the application's target and renders its {@link FaultReport}. */
@Command(
    name = "crash-test",
    description = {
      "Kills child JVMs running your FaultTarget with SIGKILL at many points (every statement and"
          + " commit on the store's and the application's connections, and each FaultPoints.reached),"
          + " runs every unanswered key again, and counts duplicate and lost effects in"
          + " your tables with --effects-query. The target must be on the class path:"
          + " java -cp onceonly-cli.jar:your.jar dev.onceonly.cli.Main crash-test ...",
      "On a server (--jdbc-url), --faults adds LOST_COMMIT_ANSWER (a commit's answer dropped, the"
          + " connection reset) and CONNECTION_RESET (every connection reset mid-transaction); the"
          + " child then goes on and calls the target again for the key that failed.",
      "On a cluster (--jdbc-url naming every node, e.g."
          + " jdbc:postgresql://h1,h2,h3/db?targetServerType=primary), --failover-command fails it"
          + " over while a child waits inside a transaction (e.g. \"patronictl -c"
          + " /etc/patroni.yml switchover --force\"); every child rides it through, retrying its"
          + " calls for up to 90 s, and the effects are counted on the new primary.",
      "Exit status 1 when an effect was duplicated or lost, and when no kill landed at a point of"
          + " the application's own (INCOMPLETE: an effect through a pool of the target's own is"
          + " never killed around; make it through the data source FaultTarget.prepare(once,"
          + " dataSource) hands over, or name points with FaultPoints.reached). A class of points"
          + " reached but never killed in is listed (INCOMPLETE, \"covered\": false): give more"
          + " --kills."
    })
final class CrashTestCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec CommandSpec spec;

  @Option(
      names = "--target",
      required = true,
      paramLabel = "CLASS",
      description = "your dev.onceonly.testing.FaultTarget: public, with a no-argument constructor")
  String target;

  @Option(
      names = "--effects-query",
      required = true,
      paramLabel = "SQL",
      description =
          "SQL counting your effects per key, (key, count), e.g. \"SELECT order_id, COUNT(*) FROM"
              + " charges GROUP BY order_id\"")
  String effectsQuery;

  @Option(
      names = "--kills",
      defaultValue = "50",
      description = "child JVMs to kill (default: ${DEFAULT-VALUE})")
  int kills;

  @Option(names = "--keys", description = "keys in all (default: twice the kills)")
  Integer keys;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "random seed of the kill points (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(
      names = "--db",
      paramLabel = "FILE",
      description = "the SQLite file to work on (default: a new one in a temporary folder)")
  Path db;

  @Option(
      names = "--jdbc-url",
      paramLabel = "URL",
      description =
          "run on this database server instead, e.g. jdbc:postgresql://host:5432/db?user=U&password=P"
              + " or jdbc:mariadb://host:3306/db?user=U&password=P (credentials as URL parameters,"
              + " masked in messages); give the run a database of its own")
  String jdbcUrl;

  @Option(
      names = "--faults",
      split = ",",
      paramLabel = "FAULT",
      defaultValue = "KILL",
      description =
          "the faults, comma-separated: ${COMPLETION-CANDIDATES}; other than KILL on --jdbc-url"
              + " only (default: ${DEFAULT-VALUE})")
  Fault[] faults;

  @Option(
      names = "--failover-command",
      paramLabel = "COMMAND",
      description =
          "with --jdbc-url: a shell command (sh -c) that fails your cluster over and returns once a"
              + " new primary takes writes, e.g. \"patronictl -c /etc/patroni.yml switchover"
              + " --force\"; a status other than 0 ends the run with status 2")
  String failoverCommand;

  @Option(
      names = "--failovers",
      defaultValue = "1",
      description =
          "how many times --failover-command runs, spread over the run, at most --kills"
              + " (default: ${DEFAULT-VALUE})")
  int failovers;

  @Option(names = "--json", description = "print JSON instead of text")
  boolean json;

  @Override
  public Integer call() {
    FaultReport r;
    try {
      if (db != null && jdbcUrl != null) {
        throw new CliException(
            CliException.USAGE, "give at most one of --db FILE or --jdbc-url URL");
      }
      FaultRun run = FaultRun.of(target, effectsQuery).kills(kills).seed(seed).faults(faults);
      if (keys != null) {
        run.keys(keys);
      }
      if (db != null) {
        run.file(db);
      }
      if (jdbcUrl != null) {
        run.database(jdbcUrl, new Properties());
      }
      if (failoverCommand != null) {
        run.failover(this::failOver).failovers(failovers);
      }
      r = run.run();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new CliException(CliException.USAGE, Target.firstLine(Target.redact(e.getMessage())));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("ok", r.ok());
      doc.put("clean", r.clean());
      doc.put("covered", r.covered());
      doc.put("killedInTheApplication", r.killedInTheApplication());
      doc.put("kills", r.kills());
      doc.put("faults", r.faults());
      doc.put("keys", r.keys());
      doc.put("children", r.children());
      doc.put("duplicates", r.duplicates());
      doc.put("lost", r.lost());
      doc.put("duplicatedKeys", r.duplicatedKeys());
      doc.put("lostKeys", r.lostKeys());
      doc.put("killPoints", r.killPoints());
      doc.put("reachedClasses", r.reachedClasses());
      doc.put("missedClasses", r.missedClasses());
      doc.put("database", r.database());
      if (r.file() != null) {
        doc.put("file", r.file().toString());
      }
      doc.put("elapsedSeconds", r.elapsed().toSeconds());
      try {
        out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(doc));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    } else {
      out.print(r.summary());
      out.println("database " + r.database());
    }
    // A run that killed nowhere near the application's effect proves nothing: a failed check too.
    return r.clean() && r.killedInTheApplication() ? 0 : CliException.FAILED;
  }

  /** Runs {@code --failover-command}; its output goes to stderr, as it is not the report. */
  private void failOver() {
    PrintWriter err = spec.commandLine().getErr();
    try {
      Process p = new ProcessBuilder("sh", "-c", failoverCommand).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      err.print(output);
      err.flush();
      int status = p.waitFor();
      if (status != 0) {
        throw new IllegalStateException(
            "--failover-command exited with status " + status + ": " + Target.firstLine(output));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run --failover-command", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while --failover-command ran", e);
    }
  }
}
