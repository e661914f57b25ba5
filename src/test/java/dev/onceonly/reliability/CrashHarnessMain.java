package dev.onceonly.reliability;

import dev.onceonly.testing.ChildArgs;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs the crash harness from the command line, on a SQLite file of your choice (on the disk and
 * file system you deploy to):
 *
 * <pre>
 * mvn -B -Pbench test-compile exec:exec -Dbench.main=dev.onceonly.reliability.CrashHarnessMain \
 *     -Dbench.args="file=/var/tmp/crash.db iterations=100 seed=1 intents=4"
 * </pre>
 *
 * <p>Arguments, as {@code name=value}: {@code file} (required; a new file is best, an old one from
 * this tool is continued), {@code iterations} (default 100), {@code seed} (default the time),
 * {@code intents} (new intents per child, default 4), {@code synchronous} ({@code FULL}, the
 * default, or {@code NORMAL}) and {@code logs} (the children's logs, default the file's folder).
 * Exits 0 and prints a summary when nothing was lost or duplicated; otherwise the first violation,
 * with the seed to run it again.
 */
public final class CrashHarnessMain {
  private CrashHarnessMain() {}

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    Path file = Path.of(args.required("file")).toAbsolutePath();
    Path logs = Path.of(args.get("logs", file.getParent().toString()));
    Files.createDirectories(logs);
    CrashHarness.Settings settings =
        new CrashHarness.Settings(
            Integer.parseInt(args.get("iterations", "100")),
            Long.parseLong(args.get("seed", String.valueOf(System.currentTimeMillis()))),
            Integer.parseInt(args.get("intents", "4")),
            logs);
    System.out.println("crash harness on " + file + ", seed " + settings.seed());
    CrashTarget target = CrashTarget.fromArgs(args);
    CrashHarness.Report report = new CrashHarness(target, settings).run();
    report.kills().forEach(System.out::println);
    System.out.println(report);
  }
}
