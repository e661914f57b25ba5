package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.Db;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library as a named module: every other test runs it on the class path, where {@code
 * module-info} is only compiled. Here an application module ({@code
 * src/test/resources/modulepath/consumer}) is compiled against {@code target/classes} and the
 * required modules (Jackson, sqlite-jdbc; the optional Jedis and picocli left out) and run in a
 * child {@code java --module-path … -m …}, with nothing on the class path.
 */
class ModulePathTest {
  private static final String SCRIPT = "dev/onceonly/sql/sqlite/V1__receipt_core.sql";

  @TempDir Path dir;

  @Test
  void onTheModulePathTheLibraryWorksItsScriptsAreOpenAndItsInternalsAreNot() throws Exception {
    String modulePath = modulePath();
    Path consumer = compile("consumer", modulePath, resource("modulepath/consumer"));
    Path file = dir.resolve("app.db");

    Map<String, String> seen;
    try (ChildJvm child =
        ChildJvm.startModule(
            "consumer",
            dir,
            modulePath + File.pathSeparator + consumer,
            "onceonly.consumer/onceonly.consumer.Main",
            file.toString())) {
      child.awaitSuccess(Duration.ofSeconds(60));
      seen =
          child.lines().stream()
              .filter(l -> l.contains("="))
              .collect(Collectors.toMap(l -> l.split("=", 2)[0], l -> l.split("=", 2)[1]));
    }

    assertThat(seen)
        .as("named modules, not the class path")
        .containsEntry("library.module", "dev.onceonly")
        .containsEntry("consumer.module", "onceonly.consumer");
    assertThat(seen)
        .as("a receipt step: the library reads its own scripts and migrates")
        .containsEntry("outcome.0", "Created 1")
        .containsEntry("outcome.1", "Repeated 1");
    assertThat(seen)
        .as(
            "%s and its PostgreSQL twin, read from another module as Flyway and Liquibase do",
            SCRIPT)
        .containsEntry("sqlite.module", "script")
        .containsEntry("sqlite.loader", "script")
        .containsEntry("sqlite.folder", "1")
        .containsEntry("postgresql.module", "script")
        .containsEntry("postgresql.loader", "script")
        .containsEntry("postgresql.folder", "1");
    assertThat(seen)
        .as("dev.onceonly.internal.db is not exported, so not even reflection reaches it")
        .containsEntry("internal", "IllegalAccessException");

    // The child is gone: what it did is in the file.
    assertThat(Db.strings(file, "SELECT id || '|' || subject FROM tickets"))
        .containsExactly("1|API timeout");
    assertThat(
            Db.strings(
                file, "SELECT scope || '|' || intent_key || '|' || result FROM onceonly_receipts"))
        .containsExactly("u-1|op-17|{\"id\":1,\"subject\":\"API timeout\"}");
    assertThat(Db.count(file, "SELECT MAX(version) FROM onceonly_schema_version")).isEqualTo(18);
  }

  @Test
  void codeInAnotherModuleDoesNotCompileAgainstTheInternalPackage() throws IOException {
    Path src = dir.resolve("intruder-src");
    Files.createDirectories(src.resolve("onceonly/intruder"));
    Files.writeString(
        src.resolve("module-info.java"), "module onceonly.intruder { requires dev.onceonly; }\n");
    Files.writeString(
        src.resolve("onceonly/intruder/Intruder.java"),
        "package onceonly.intruder;\n"
            + "public class Intruder {\n"
            + "  static final int V = dev.onceonly.internal.db.Migrator.latestVersion();\n"
            + "}\n");

    Javac run = javac(modulePath(), dir.resolve("intruder-out"), src);

    assertThat(run.status).as(run.output).isNotZero();
    assertThat(run.output)
        .contains("package dev.onceonly.internal.db is not visible")
        .contains("does not export it");
  }

  /** {@code target/classes} and the jars of the modules the library requires, nothing else. */
  private static String modulePath() {
    return Stream.of(
            "dev.onceonly.OnceOnly",
            "com.fasterxml.jackson.databind.ObjectMapper",
            "com.fasterxml.jackson.core.JsonFactory",
            "com.fasterxml.jackson.annotation.JsonProperty",
            "com.fasterxml.jackson.datatype.jsr310.JavaTimeModule",
            "org.sqlite.JDBC")
        .map(ModulePathTest::locationOf)
        .collect(Collectors.joining(File.pathSeparator));
  }

  private static String locationOf(String className) {
    try {
      return Path.of(
              Class.forName(className).getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (ClassNotFoundException | URISyntaxException e) {
      throw new IllegalStateException("cannot locate " + className, e);
    }
  }

  private static Path resource(String name) throws URISyntaxException {
    return Path.of(ModulePathTest.class.getClassLoader().getResource(name).toURI());
  }

  private Path compile(String name, String modulePath, Path src) throws IOException {
    Path out = dir.resolve(name + "-out");
    Javac run = javac(modulePath, out, src);
    assertThat(run.status).as("javac %s:%n%s", name, run.output).isZero();
    return out;
  }

  private record Javac(int status, String output) {}

  /** Compiles every source under {@code src} with the JDK's javac, in this JVM. */
  private static Javac javac(String modulePath, Path out, Path src) throws IOException {
    // In this JVM javac would take the test class path as its own: give it an empty one, so the
    // module path is all it sees.
    Path noClassPath = Files.createDirectories(out.resolveSibling(out.getFileName() + "-no-cp"));
    List<String> args =
        new ArrayList<>(
            List.of("--release", "17", "-Xlint:all", "-Werror", "--module-path", modulePath));
    args.addAll(List.of("--class-path", noClassPath.toString(), "-d", out.toString()));
    try (Stream<Path> files = Files.walk(src)) {
      files.filter(f -> f.toString().endsWith(".java")).forEach(f -> args.add(f.toString()));
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    ToolProvider javac =
        ToolProvider.findFirst("javac")
            .orElseThrow(() -> new IllegalStateException("no javac: run the tests on a JDK"));
    StringWriter text = new StringWriter();
    try (PrintWriter w = new PrintWriter(text)) {
      int status = javac.run(w, w, args.toArray(String[]::new));
      w.flush();
      return new Javac(status, text.toString());
    }
  }
}
