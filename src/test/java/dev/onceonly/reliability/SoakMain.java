package dev.onceonly.reliability;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.ChildArgs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The soak's second process: runs a {@link SoakWorkload} on the file and prints its summary line.
 *
 * <p>Arguments: {@code file}, {@code process} (its name), {@code threads}, {@code seconds} and
 * {@code seed}. Prints {@code ready}, waits for {@code go} on stdin so both processes start
 * together, runs, and prints {@code summary ...}.
 */
public final class SoakMain {
  private SoakMain() {}

  public static void main(String[] argv) throws Exception {
    ChildArgs args = ChildArgs.parse(argv);
    Path file = Path.of(args.required("file"));
    SoakWorkload workload = new SoakWorkload(args.required("process"));
    try (OnceOnly once = SoakWorkload.open(file)) {
      System.out.println("ready");
      System.out.flush();
      String go =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      if (!"go".equals(go)) {
        System.exit(2);
      }
      SoakWorkload.Summary s =
          workload.run(
              once,
              file,
              Integer.parseInt(args.required("threads")),
              Duration.ofSeconds(Long.parseLong(args.required("seconds"))),
              Long.parseLong(args.required("seed")));
      System.out.println(s.line());
      System.out.flush();
    }
  }
}
