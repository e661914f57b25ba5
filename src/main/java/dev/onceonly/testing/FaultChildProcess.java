package dev.onceonly.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One child JVM of a {@link FaultRun}: starts it ({@link FaultChild} on the current class path),
 * hands it the connection properties on stdin, follows its lines, kills it at its kill point, runs
 * the failover trigger while it waits inside a transaction, and says what it did.
 */
final class FaultChildProcess {
  private final String target;
  private final String jdbcUrl;
  private final Properties properties;
  private final Set<Fault> faults;
  private final Runnable failover;
  private final Duration childTimeout;

  FaultChildProcess(
      String target,
      String jdbcUrl,
      Properties properties,
      Set<Fault> faults,
      Runnable failover,
      Duration childTimeout) {
    this.target = target;
    this.jdbcUrl = jdbcUrl;
    this.properties = properties;
    this.faults = faults;
    this.failover = failover;
    this.childTimeout = childTimeout;
  }

  /**
   * What one child did: the keys it answered, where it was killed (or null), where it was given
   * another fault or a failover (or null), its points, the points of each fault, the classes it
   * reached, its points inside a transaction and the commits among them (in a run with a failover).
   */
  record Result(
      Set<String> answered,
      String killPoint,
      String faultPoint,
      int points,
      Map<Fault, Integer> faultPoints,
      Set<String> seen,
      int openPoints,
      Set<String> commits) {}

  /** Runs one child JVM on the keys, to stop as {@code stop} says (see {@link FaultChild}). */
  Result run(Path db, String stop, List<String> batch) {
    List<String> command = new ArrayList<>();
    command.add(
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(
        List.of(
            "-Xmx128m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:CICompilerCount=1",
            // the class path is the parent's, already verified there: a quicker start
            "-XX:+UnlockDiagnosticVMOptions",
            "-XX:-BytecodeVerificationRemote",
            "-XX:-CreateCoredumpOnCrash",
            "-cp",
            System.getProperty("java.class.path"),
            FaultChild.class.getName(),
            target,
            jdbcUrl != null ? jdbcUrl : db.toAbsolutePath().toString(),
            stop,
            String.join(",", batch),
            faults.stream().map(Fault::name).collect(Collectors.joining(",")),
            failover != null ? FaultChild.FAILOVER : "-"));
    Process p;
    OutputStream in;
    try {
      p =
          new ProcessBuilder(command)
              .redirectError(
                  ProcessBuilder.Redirect.appendTo(db.resolveSibling("children.err").toFile()))
              .start();
      in = p.getOutputStream();
      if (jdbcUrl != null) {
        properties.store(in, null); // the password stays off the command line
        in.write(FaultChild.END_OF_PROPERTIES.getBytes(StandardCharsets.UTF_8));
        in.flush();
      }
      if (failover == null) {
        in.close(); // else kept open: the child waits on it while the cluster fails over
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a child JVM", e);
    }
    try {
      return follow(p, stop, in);
    } finally {
      p.destroyForcibly();
      waitFor(p);
      try {
        in.close();
      } catch (IOException e) {
        // the child is gone
      }
    }
  }

  /** Runs the failover trigger for a child waiting inside a transaction, then lets it go on. */
  private void failOver(OutputStream child) {
    try {
      failover.run();
    } catch (RuntimeException e) {
      throw new IllegalStateException("the failover trigger failed: " + e, e);
    }
    try {
      child.write("GO\n".getBytes(StandardCharsets.UTF_8));
      child.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("a child JVM waiting for the failover is gone", e);
    }
  }

  private Result follow(Process p, String stop, OutputStream in) {
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  lines.add(line);
                }
              } catch (IOException e) {
                // the child is gone: what it printed before is in the queue
              } finally {
                lines.add("");
              }
            },
            "fault-run-child");
    pump.setDaemon(true);
    pump.start();
    Set<String> answered = new LinkedHashSet<>();
    Set<String> seen = new LinkedHashSet<>();
    Map<Fault, Integer> faultPoints = new EnumMap<>(Fault.class);
    String faultPoint = null;
    List<String> tail = new ArrayList<>();
    long deadline = System.nanoTime() + childTimeout.toNanos();
    int points = 0;
    int openPoints = 0;
    Set<String> commits = new LinkedHashSet<>();
    while (true) {
      String line = take(lines, deadline, p);
      if (line.isEmpty()) {
        break; // end of stdout
      }
      tail.add(line);
      if (line.startsWith("ANSWERED ")) {
        answered.add(line.substring(9));
      } else if (line.startsWith("SEEN ")) {
        seen.add(line.substring(5));
      } else if (line.startsWith("KILLPOINT ")) {
        p.destroyForcibly(); // SIGKILL on Linux and macOS: no shutdown hook, no finally
        waitFor(p);
        String[] parts = line.split(" ", 4);
        return new Result(
            answered,
            parts.length > 3 ? parts[3] : "?",
            null,
            Integer.parseInt(parts[1]),
            faultPoints,
            seen,
            openPoints,
            commits);
      } else if (line.startsWith("FAILOVER ")) {
        long started = System.nanoTime();
        failOver(in);
        deadline += System.nanoTime() - started; // the trigger's time is not the child's
        String[] parts = line.split(" ", 4);
        faultPoint = FaultReport.FAILOVER + (parts.length > 3 ? parts[3] : "?");
      } else if (line.startsWith("UNBROKEN ")) {
        p.destroyForcibly();
        waitFor(p);
        throw new IllegalStateException(
            "the failover trigger returned, but the child's transaction went on on the same"
                + " connection ("
                + line.substring(9)
                + "): the cluster did not fail over, and the run could not find what it aimed at."
                + " The trigger must return once the failover happened, and throw when it did not");
      } else if (line.startsWith("COMMITPOINT ")) {
        commits.add(line.substring(12));
      } else if (line.startsWith("OPENPOINTS ")) {
        openPoints = Integer.parseInt(line.substring(11));
      } else if (line.startsWith("FAULT ")) {
        String[] parts = line.split(" ", 4);
        faultPoint = parts.length > 3 ? parts[3] : "?";
      } else if (line.startsWith("POINTS ")) {
        points = Integer.parseInt(line.substring(7));
      } else if (line.startsWith("FAULTPOINTS ")) {
        String[] parts = line.split(" ", 3);
        faultPoints.put(Fault.valueOf(parts[1]), Integer.parseInt(parts[2]));
      }
    }
    int status = waitFor(p);
    if (status != 0) {
      throw new IllegalStateException(
          "a child JVM exited with status " + status + " (stop point " + stop + "): " + tail);
    }
    return new Result(answered, null, faultPoint, points, faultPoints, seen, openPoints, commits);
  }

  private String take(BlockingQueue<String> lines, long deadline, Process p) {
    try {
      String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (line == null) {
        p.destroyForcibly();
        throw new IllegalStateException("a child JVM ran longer than " + childTimeout);
      }
      return line;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IllegalStateException("interrupted while a child JVM ran", e);
    }
  }

  private static int waitFor(Process p) {
    try {
      return p.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
