package dev.onceonly.testing;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * A child JVM running a main class on this test's class path, for tests that need real processes:
 * several writers on one SQLite file, or a worker killed with SIGKILL.
 *
 * <p>The child gets the current {@code java} executable, the current class path and a small heap,
 * and none of the parent's JVM options (so no JaCoCo agent). Its stdout is read line by line into
 * memory and into {@code <name>.out} in the log folder, so a test can wait for a line without
 * polling; its stderr goes to {@code <name>.err}. Failures carry the tail of both.
 *
 * <p>Close it (try-with-resources) so that a child still running when a test fails is killed. Not
 * thread-safe, except that output is collected on a thread of its own.
 */
public final class ChildJvm implements AutoCloseable {
  private static final int TAIL_LINES = 40;
  private static final Charset UTF8 = StandardCharsets.UTF_8;

  private final String name;
  private final Process process;
  private final Path out;
  private final Path err;
  private final Writer stdin;
  private final Thread pump;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final List<String> lines = new ArrayList<>();
  private boolean eof;

  private ChildJvm(String name, Process process, Path out, Path err) {
    this.name = name;
    this.process = process;
    this.out = out;
    this.err = err;
    this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), UTF8));
    this.pump = new Thread(this::pump, "child-" + name + "-stdout");
    pump.setDaemon(true);
    pump.start();
  }

  /**
   * Starts {@code main} in a new JVM with {@code -Xmx128m}.
   *
   * @param name a short name for logs and messages, also the log files' base name
   * @param logDir an existing folder for {@code <name>.out} and {@code <name>.err}
   * @param main the class whose {@code main} runs in the child
   * @param args its arguments
   * @return the running child
   */
  public static ChildJvm start(String name, Path logDir, Class<?> main, String... args) {
    return start(name, logDir, System.getProperty("java.class.path"), main, args);
  }

  /**
   * Starts {@code main} as {@link #start} does, on this test's class path without the entries whose
   * path contains {@code omitted}: an optional dependency left out, as on a user's class path.
   *
   * @param name a short name for logs and messages, also the log files' base name
   * @param logDir an existing folder for {@code <name>.out} and {@code <name>.err}
   * @param omitted a part of the path of each class path entry to leave out, e.g. {@code jedis}
   * @param main the class whose {@code main} runs in the child
   * @param args its arguments
   * @return the running child
   */
  public static ChildJvm startWithout(
      String name, Path logDir, String omitted, Class<?> main, String... args) {
    String classPath =
        java.util.Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.contains(omitted))
            .collect(java.util.stream.Collectors.joining(File.pathSeparator));
    return start(name, logDir, classPath, main, args);
  }

  /**
   * Starts the main class of a module in a new JVM, as {@code java --module-path modulePath -m
   * mainModule/mainClass args}, with nothing on the class path: the library as a named module among
   * the user's.
   *
   * @param name a short name for logs and messages, also the log files' base name
   * @param logDir an existing folder for {@code <name>.out} and {@code <name>.err}
   * @param modulePath the module path, entries joined by {@link File#pathSeparator}
   * @param mainModuleAndClass {@code module/class}, as {@code java -m} takes it
   * @param args its arguments
   * @return the running child
   */
  public static ChildJvm startModule(
      String name, Path logDir, String modulePath, String mainModuleAndClass, String... args) {
    Objects.requireNonNull(mainModuleAndClass, "mainModuleAndClass");
    return start(
        name, logDir, List.of("--module-path", modulePath, "-m", mainModuleAndClass), args);
  }

  private static ChildJvm start(
      String name, Path logDir, String classPath, Class<?> main, String... args) {
    Objects.requireNonNull(main, "main");
    return start(name, logDir, List.of("-cp", classPath, main.getName()), args);
  }

  private static ChildJvm start(String name, Path logDir, List<String> launch, String... args) {
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    // Small and quick to start: four of these must share two cores with the test JVM.
    command.add("-Xmx128m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    // A child that crashes writes its report beside its logs, not into the working directory.
    command.add("-XX:ErrorFile=" + logDir.toAbsolutePath().resolve(name + "-hs_err_pid%p.log"));
    command.add("-XX:-CreateCoredumpOnCrash");
    command.addAll(launch);
    command.addAll(List.of(args));
    Path out = logDir.resolve(name + ".out");
    Path err = logDir.resolve(name + ".err");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectError(err.toFile())
              .redirectOutput(ProcessBuilder.Redirect.PIPE)
              .start();
      return new ChildJvm(name, p, out, err);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start child JVM " + name, e);
    }
  }

  private static String javaExecutable() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  private void pump() {
    try (BufferedReader r =
            new BufferedReader(new InputStreamReader(process.getInputStream(), UTF8));
        Writer log = Files.newBufferedWriter(out, UTF8)) {
      String line;
      while ((line = r.readLine()) != null) {
        log.write(line);
        log.write('\n');
        log.flush();
        add(line);
      }
    } catch (IOException e) {
      add("[ChildJvm: reading stdout failed: " + e + "]");
    } finally {
      lock.lock();
      try {
        eof = true;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  private void add(String line) {
    lock.lock();
    try {
      lines.add(line);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Returns the child's name. */
  public String name() {
    return name;
  }

  /** Returns the child's process id. */
  public long pid() {
    return process.pid();
  }

  /** Returns whether the child is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** Returns a copy of the stdout lines read so far. */
  public List<String> lines() {
    lock.lock();
    try {
      return List.copyOf(lines);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Sends one line to the child's stdin.
   *
   * @param line the line, without its end
   */
  public void send(String line) {
    try {
      stdin.write(line);
      stdin.write('\n');
      stdin.flush();
    } catch (IOException e) {
      throw new AssertionError(diagnostics("cannot write to stdin of"), e);
    }
  }

  /**
   * Waits until the child prints a line that matches, and returns it.
   *
   * @param what describes the line, for the failure message
   * @param matches the test for a line
   * @param timeout how long to wait
   * @return the first matching line
   * @throws AssertionError if the child's stdout ends or the timeout passes first; the child is
   *     killed
   */
  public String awaitLine(String what, Predicate<String> matches, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      int seen = 0;
      while (true) {
        for (; seen < lines.size(); seen++) {
          if (matches.test(lines.get(seen))) {
            return lines.get(seen);
          }
        }
        long left = deadline - System.nanoTime();
        if (eof || left <= 0) {
          break;
        }
        changed.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
    kill();
    throw new AssertionError(
        diagnostics("no line '" + what + "' within " + timeout + " (or stdout ended) from"));
  }

  /**
   * Waits until the child prints a line that starts with {@code prefix}, and returns it.
   *
   * @see #awaitLine(String, Predicate, Duration)
   */
  public String awaitLine(String prefix, Duration timeout) {
    return awaitLine(prefix + "...", l -> l.startsWith(prefix), timeout);
  }

  /**
   * Waits for the child to exit and for its stdout to be read to the end.
   *
   * @param timeout how long to wait
   * @return the exit code
   * @throws AssertionError if the child is still running after the timeout; it is then killed
   */
  public int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        kill();
        throw new AssertionError(diagnostics("still running after " + timeout + ", killed:"));
      }
      pump.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
      throw new AssertionError("interrupted waiting for " + name, e);
    }
    return process.exitValue();
  }

  /**
   * Waits for the child to exit with status 0.
   *
   * @param timeout how long to wait
   * @throws AssertionError if it runs longer or exits with another status
   */
  public void awaitSuccess(Duration timeout) {
    int code = awaitExit(timeout);
    if (code != 0) {
      throw new AssertionError(diagnostics("exit status " + code + " from"));
    }
  }

  /**
   * Kills the child with SIGKILL ({@link Process#destroyForcibly()} on Linux and macOS), so it gets
   * no chance to clean up, and waits until it is gone and what it printed before has been read.
   *
   * @return the exit status, 137 (128 + 9) on Linux if it was still running
   */
  public int kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new AssertionError("child " + name + " (pid " + pid() + ") survived SIGKILL");
      }
      pump.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for " + name + " to die", e);
    }
    return process.exitValue();
  }

  /** Kills the child if it is still running. */
  @Override
  public void close() {
    try {
      stdin.close();
    } catch (IOException e) {
      // the child is gone or going; nothing to tell it
    }
    if (process.isAlive()) {
      kill();
    }
  }

  /** Returns {@code what}, the child's name and pid, and the tail of its stdout and stderr. */
  public String diagnostics(String what) {
    StringBuilder b = new StringBuilder();
    b.append(what).append(" child ").append(name).append(" (pid ").append(pid()).append(")");
    List<String> seen = lines();
    b.append("\n--- stdout (").append(out).append("), last lines:\n");
    seen.subList(Math.max(0, seen.size() - TAIL_LINES), seen.size())
        .forEach(l -> b.append(l).append('\n'));
    b.append("--- stderr (").append(err).append("), last lines:\n");
    try {
      List<String> errLines = Files.readAllLines(err, UTF8);
      errLines
          .subList(Math.max(0, errLines.size() - TAIL_LINES), errLines.size())
          .forEach(l -> b.append(l).append('\n'));
    } catch (IOException | UncheckedIOException e) {
      b.append("[cannot read: ").append(e).append("]\n");
    }
    return b.toString();
  }

  /**
   * Several children closed together: closing the group kills every child still running, even if
   * killing one of them fails.
   */
  public static final class Group implements AutoCloseable {
    private final List<ChildJvm> children = new ArrayList<>();

    /** Adds a started child and returns it. */
    public ChildJvm add(ChildJvm child) {
      children.add(Objects.requireNonNull(child, "child"));
      return child;
    }

    /** Returns the children in the order they were added. */
    public List<ChildJvm> all() {
      return List.copyOf(children);
    }

    @Override
    public void close() {
      Throwable first = null;
      for (ChildJvm child : children) {
        try {
          child.close();
        } catch (RuntimeException | Error e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      if (first instanceof RuntimeException e) {
        throw e;
      }
      if (first != null) {
        throw (Error) first;
      }
    }
  }
}
