package dev.onceonly.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One run of the command-line tool in this process, with what it printed.
 *
 * @param status the exit status
 * @param out what went to stdout
 * @param err what went to stderr
 */
record CliRun(int status, String out, String err) {
  static CliRun of(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        Main.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new CliRun(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  List<String> lines() {
    return out.lines().toList();
  }

  String lastLine() {
    List<String> lines = lines();
    return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
  }

  @Override
  public String toString() {
    return "status " + status + "\n--- out\n" + out + "--- err\n" + err;
  }
}
