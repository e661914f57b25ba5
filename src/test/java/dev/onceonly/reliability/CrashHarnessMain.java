package dev.onceonly.reliability;

import dev.onceonly.testing.ChildArgs;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs the crash harness from the command line, on a SQLite file of your choice (on the disk and
 * file system you deploy to) or on a PostgreSQL schema:
 *
 * <pre>
 * mvn -B -Pbench test-compile exec:exec -Dbench.main=dev.onceonly.reliability.CrashHarnessMain \
 *     -Dbench.args="file=/var/tmp/crash.db iterations=100 seed=1 intents=4"
 * mvn -B -Pbench test-compile exec:exec -Dbench.main=dev.onceonly.reliability.CrashHarnessMain \
 *     -Dbench.args="url=jdbc:postgresql://db/app?currentSchema=crash&amp;user=u iterations=30"
 * </pre>
 *
 * <p>Arguments, as {@code name=value}: {@code file} (a SQLite file; a new file is best, an old one
 * from this tool is continued) or {@code url} (a {@code jdbc:postgresql:} URL; its {@code
 * currentSchema}, which must exist, is best new and used for nothing else), {@code iterations}
 * (default 100), {@code seed} (default the time), {@code intents} (new intents per child, default
 * 4), {@code synchronous} (SQLite: {@code FULL}, the default, or {@code NORMAL}), {@code timeZone}
 * (PostgreSQL: a session time zone to set, default the server's) and {@code logs} (the children's
 * logs, default the file's folder, or the temporary folder for a URL). Exits 0 and prints a summary
 * when nothing was lost or duplicated; otherwise the first violation, with the seed to run it
 * again.
 */
public final class CrashHarnessMain {
  private CrashHarnessMain() {}

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    String defaultLogs =
        args.get("url", null) != null
            ? System.getProperty("java.io.tmpdir")
            : Path.of(args.required("file")).toAbsolutePath().getParent().toString();
    Path logs = Path.of(args.get("logs", defaultLogs));
    Files.createDirectories(logs);
    CrashHarness.Settings settings =
        new CrashHarness.Settings(
            Integer.parseInt(args.get("iterations", "100")),
            Long.parseLong(args.get("seed", String.valueOf(System.currentTimeMillis()))),
            Integer.parseInt(args.get("intents", "4")),
            logs);
    try (CrashTarget target = CrashTarget.fromArgs(args)) {
      System.out.println("crash harness on " + target.describe() + ", seed " + settings.seed());
      CrashHarness.Report report = new CrashHarness(target, settings).run();
      report.kills().forEach(System.out::println);
      System.out.println(report);
    }
  }
}
