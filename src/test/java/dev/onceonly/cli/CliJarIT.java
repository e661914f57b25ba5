package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.Db;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command, for real: {@code java -jar target/onceonly-cli.jar demo} in a new
 * folder, as a newcomer runs it, after {@code package} built the shaded jar (failsafe runs this in
 * {@code verify}). The in-process tests ({@link DemoContract}, {@link CommandsContract}) cannot see
 * what only the jar decides: its manifest, the dependencies shaded into it, the driver services
 * file, and what its libraries print on their own.
 */
class CliJarIT {
  private static final Pattern LINE =
      Pattern.compile(
          "demo: intents=(\\d+) effects=(\\d+) duplicates=0 repeated=(\\d+) conflicts=1"
              + " rejected=\\d+ pending=0 OK");

  @TempDir Path dir;

  @Test
  void theDemoRunsTwiceFromTheJarAndItsLineMatchesTheRows() throws Exception {
    Run first = run("demo");
    assertThat(first.status).as("%s", first.output).isZero();
    Matcher one = matchLast(first);
    Path file = dir.resolve("onceonly-demo.db");
    assertThat(file).as("the default file, in the current folder").exists();
    long intents = Long.parseLong(one.group(1));
    assertThat(Long.parseLong(one.group(2))).isEqualTo(intents);
    assertThat(
            Db.count(file, "SELECT COUNT(*) FROM onceonly_intents")
                + Db.count(
                    file,
                    "SELECT COUNT(*) FROM onceonly_receipts WHERE operation = 'create_ticket'"))
        .isEqualTo(intents);
    assertThat(Db.count(file, "SELECT COUNT(*) FROM reports"))
        .isEqualTo(Db.count(file, "SELECT COUNT(*) FROM onceonly_intents"));

    Run second = run("demo");
    assertThat(second.status).as("%s", second.output).isZero();
    Matcher two = matchLast(second);
    assertThat(Long.parseLong(two.group(1)))
        .as("no new intent on the second run")
        .isEqualTo(intents);
    assertThat(Long.parseLong(two.group(3)))
        .as("the second run is answered from receipts")
        .isGreaterThan(Long.parseLong(one.group(3)));
  }

  @Test
  void anOperatorErrorFromTheJarIsOneLine() throws Exception {
    Run status = run("status", "--db", dir.resolve("missing.db").toString());
    assertThat(status.status).isEqualTo(3);
    assertThat(status.output).as("nothing but the tool's own line").hasSize(1);
    assertThat(status.output.get(0)).startsWith("onceonly: no database file at");
    assertThat(dir.resolve("missing.db")).doesNotExist();
  }

  /**
   * Commands that get as far as opening a database, where the libraries the jar carries (cron-utils
   * with SLF4J 2, Jedis) are loaded: a failing one says one line on stderr and nothing else, and a
   * succeeding one prints no logging library's warning either.
   */
  @Test
  void noLoggingLibraryAddsLinesToWhatTheJarSays() throws Exception {
    Path empty = Files.createFile(dir.resolve("empty.db"));
    for (String command : List.of("status", "pending", "verify")) {
      Run failed = run(command, "--db", empty.toString());
      assertThat(failed.status).as("%s: %s", command, failed.err).isNotZero();
      assertThat(failed.err).as("%s on a 0-byte file: stderr", command).hasSize(1);
      assertThat(failed.err.get(0)).startsWith("onceonly: ");
      assertThat(failed.out).as("%s on a 0-byte file: stdout", command).isEmpty();
    }
    Path db = dir.resolve("store.db");
    for (String[] args :
        List.of(
            new String[] {"migrate", "--db", db.toString()},
            new String[] {"status", "--db", db.toString()},
            new String[] {"purge", "--db", db.toString(), "--older-than", "30d"})) {
      Run ok = run(args);
      assertThat(ok.status).as("%s: %s", args[0], ok.output).isZero();
      assertThat(ok.output).as("%s", args[0]).noneMatch(line -> line.startsWith("SLF4J"));
    }
  }

  /**
   * The README's dashboard command, {@code dashboard --db onceonly-demo.db}, from the jar on the
   * demo's file: it prints one URL on 127.0.0.1 with a token, whose pages a real HTTP client
   * fetches; without the token it answers 401; a SIGTERM (as Ctrl-C) stops it through its shutdown
   * hook, and the file still holds the demo's rows.
   */
  @Test
  void theDashboardServesTheDemosFileFromTheJar() throws Exception {
    Run demo = run("demo");
    assertThat(demo.status).as("%s", demo.output).isZero();
    Path file = dir.resolve("onceonly-demo.db");
    long intents = Db.count(file, "SELECT COUNT(*) FROM onceonly_intents");
    Path err = dir.resolve("dashboard.err");
    Process p =
        new ProcessBuilder(command("dashboard", "--db", "onceonly-demo.db"))
            .directory(dir.toFile())
            .redirectError(err.toFile())
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      // readLine waits for the line itself; the future bounds that wait
      String line =
          CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      return out.readLine();
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  })
              .get(2, TimeUnit.MINUTES);
      assertThat(line)
          .as("stderr: %s", Files.readString(err))
          .matches("http://127\\.0\\.0\\.1:\\d+/\\?token=[A-Za-z0-9_-]{43}");
      String base = line.substring(0, line.indexOf('?'));
      HttpClient browser =
          HttpClient.newBuilder()
              .cookieHandler(new CookieManager())
              .followRedirects(HttpClient.Redirect.NORMAL)
              .build();
      HttpResponse<String> overview = get(browser, line);
      assertThat(overview.statusCode()).isEqualTo(200);
      assertThat(overview.body())
          .contains(
              "SQLite file onceonly-demo.db",
              "<td>registered</td><td class=\"n\">" + intents + "</td>");
      HttpResponse<String> dead = get(browser, base + "dead-letters");
      assertThat(dead.statusCode()).isEqualTo(200);
      assertThat(dead.body()).contains("Dead letters");
      assertThat(get(HttpClient.newHttpClient(), base).statusCode()).isEqualTo(401);
    } finally {
      p.destroy(); // SIGTERM: the shutdown hook stops the server and closes the store
      assertThat(p.waitFor(1, TimeUnit.MINUTES)).as("stopped by SIGTERM").isTrue();
    }
    assertThat(Files.readAllLines(err))
        .as("one line of its own on stderr, no logging library's")
        .singleElement()
        .satisfies(l -> assertThat(l).startsWith("onceonly: the dashboard of onceonly-demo.db"));
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_intents")).isEqualTo(intents);
  }

  private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  private static Matcher matchLast(Run run) {
    String last = run.out.get(run.out.size() - 1);
    Matcher m = LINE.matcher(last);
    assertThat(m.matches()).as("last line: %s", last).isTrue();
    return m;
  }

  /** A finished run: its exit status, its stdout and stderr lines, and both (stdout first). */
  private record Run(int status, List<String> out, List<String> err, List<String> output) {}

  /** {@return the command line that runs the jar with {@code args}} */
  private static List<String> command(String... args) {
    Path jar = Path.of(System.getProperty("onceonly.cli.jar", "target/onceonly-cli.jar"));
    assertThat(jar).as("built by package before this test").exists();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(jar.toAbsolutePath().toString());
    command.addAll(List.of(args));
    return command;
  }

  private Run run(String... args) throws IOException, InterruptedException {
    List<String> command = command(args);
    long n = System.nanoTime();
    Path out = dir.resolve("run-" + n + ".out");
    Path err = dir.resolve("run-" + n + ".err");
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(
          "the jar did not finish in 3 minutes: " + Files.readString(out) + Files.readString(err));
    }
    List<String> outLines = Files.readAllLines(out, StandardCharsets.UTF_8);
    List<String> errLines = Files.readAllLines(err, StandardCharsets.UTF_8);
    List<String> both = new ArrayList<>(outLines);
    both.addAll(errLines);
    return new Run(p.exitValue(), outLines, errLines, both);
  }
}
