package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.Eventually;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of {@code onceonly dashboard} in a thread of this process, with what it printed so far:
 * started, it waits for the one URL the command prints on stdout.
 */
final class DashboardRun {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final AtomicInteger status = new AtomicInteger(-1);
  private final Thread thread;
  final String url;

  /** Runs the command with {@code args} and waits for a line of stdout matching {@code urlLine}. */
  DashboardRun(Pattern urlLine, String[] args) {
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    thread = new Thread(() -> status.set(Main.run(args, o, e)), "dashboard-command");
    thread.start();
    Eventually.await(
        WAIT, "the dashboard's URL on stdout", () -> urlLine.matcher(printed()).find() || done());
    Matcher m = urlLine.matcher(printed());
    assertThat(m.find()).as("the URL line; %s", this).isTrue();
    url = m.group();
    assertThat(printed().lines()).as("one line on stdout: the URL").containsExactly(url);
  }

  /** {@return the printed URL without its token} */
  String base() {
    return url.substring(0, url.indexOf('?'));
  }

  /** {@return what the command wrote to stderr so far} */
  synchronized String errors() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private synchronized String printed() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private boolean done() {
    return status.get() >= 0;
  }

  /** Stops the command as an embedding caller does, and returns its exit status. */
  int stop() throws InterruptedException {
    thread.interrupt();
    thread.join(WAIT.toMillis());
    assertThat(thread.isAlive()).as("stopped; %s", this).isFalse();
    return status.get();
  }

  @Override
  public String toString() {
    return "status " + status.get() + "\n--- out\n" + printed() + "--- err\n" + errors();
  }
}
