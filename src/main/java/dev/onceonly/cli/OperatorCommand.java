package dev.onceonly.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every operator command shares: the target, {@code --json}, and the output. Each command
 * works on {@code --db FILE} or {@code --jdbc-url URL} and renders what the store's public API
 * returns.
 */
abstract class OperatorCommand implements Callable<Integer> {
  private static final ObjectMapper JSON =
      new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  @Spec CommandSpec spec;

  @Mixin Target target;

  @Option(names = "--json", description = "print JSON instead of aligned text")
  boolean json;

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** Where progress lines go: stderr, so that stdout stays one document with {@code --json}. */
  PrintWriter progress() {
    return spec.commandLine().getErr();
  }

  /** Prints a JSON document, or the table under its title. */
  void print(Object document, String title, Table table) {
    if (json) {
      json(document);
    } else {
      if (title != null) {
        out().println(title);
      }
      table.print(out());
    }
  }

  /** Prints a flat document: as JSON, or one aligned line a field. */
  void printFields(Map<String, Object> document) {
    Table t = new Table("field", "value");
    document.forEach(t::add);
    print(document, null, t);
  }

  void json(Object document) {
    try {
      out().println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(document));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode tree(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new CliException(
          CliException.USAGE, "not valid JSON: " + Target.firstLine(e.getMessage()));
    }
  }

  static String oneLine(String text) {
    if (text == null) {
      return null;
    }
    String line = text.replaceAll("\\s+", " ").strip();
    return line.length() <= 80 ? line : line.substring(0, 79) + "\u2026";
  }

  static String human(Duration d) {
    long s = d.toSeconds();
    if (s < 120) {
      return s + "s";
    }
    if (s < 7_200) {
      return (s / 60) + "m";
    }
    if (s < 172_800) {
      return (s / 3_600) + "h";
    }
    return (s / 86_400) + "d";
  }
}
