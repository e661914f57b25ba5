package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * Every command and subcommand answers {@code --help} with its own usage and exit status 0, and
 * {@code --version} names the version this jar was built as (the project's version in pom.xml), not
 * a string written by hand.
 */
class HelpAndVersionTest {

  /** Every command path of the tool, {@code ["dead-letters", "list"]} and so on. */
  static Stream<List<String>> commands() {
    List<List<String>> out = new ArrayList<>();
    walk(new CommandLine(Main.class), List.of(), out);
    return out.stream();
  }

  private static void walk(CommandLine cl, List<String> path, List<List<String>> out) {
    for (var e : cl.getSubcommands().entrySet()) {
      if (e.getValue().getCommandSpec().aliases().length > 0
          && !e.getKey().equals(e.getValue().getCommandName())) {
        continue; // an alias of a command already walked
      }
      List<String> p = new ArrayList<>(path);
      p.add(e.getKey());
      out.add(p);
      walk(e.getValue(), p, out);
    }
  }

  @ParameterizedTest
  @MethodSource("commands")
  void everyCommandAnswersHelp(List<String> path) {
    List<String> args = new ArrayList<>(path);
    args.add("--help");
    CliRun help = CliRun.of(args.toArray(String[]::new));
    assertThat(help.status()).as(help.err()).isZero();
    assertThat(help.out()).startsWith("Usage: onceonly " + String.join(" ", path));
    assertThat(help.err()).isEmpty();
  }

  @Test
  void theToolHasCommandsToAsk() {
    assertThat(commands().count()).isGreaterThanOrEqualTo(8);
  }

  @Test
  void versionIsTheBuiltVersion() throws IOException {
    CliRun version = CliRun.of("--version");
    assertThat(version.status()).isZero();
    assertThat(version.out().strip()).isEqualTo("onceonly " + pomVersion());
    CliRun sub = CliRun.of("status", "--version");
    assertThat(sub.out().strip()).isEqualTo("onceonly " + pomVersion());
  }

  private static String pomVersion() throws IOException {
    String pom = Files.readString(Path.of("pom.xml"));
    Matcher m =
        Pattern.compile("<artifactId>onceonly</artifactId>\\s*<version>([^<]+)</version>")
            .matcher(pom);
    assertThat(m.find()).as("the project's version in pom.xml").isTrue();
    return m.group(1);
  }

  @Test
  void helpListsEveryCommand() {
    CliRun help = CliRun.of("--help");
    assertThat(help.status()).isZero();
    assertThat(help.out())
        .contains(
            "demo",
            "status",
            "pending",
            "receipts",
            "dead-letters",
            "unknown",
            "purge",
            "migrate",
            "dashboard");
  }
}
