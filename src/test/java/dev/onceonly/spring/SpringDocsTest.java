package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.http.IdempotencyFilter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.sqlite.SQLiteConfig;

/**
 * docs/spring.md shows the test application's code as it is ({@code OrderService}, {@code
 * ShippingHandler}, run by {@link PostgresSpringTransactionTest}, {@link
 * SqliteSpringTransactionTest} and {@link PostgresWorkerBeansTest}), and its property blocks bind
 * in a real context. When one changes, change the other the same way.
 */
class SpringDocsTest {
  @TempDir Path dir;

  static String docs() throws IOException {
    return Files.readString(Path.of("docs/spring.md"), StandardCharsets.UTF_8);
  }

  /** The lines between the markers of {@code file}, less their common indentation. */
  static String region(String file, String start, String end) throws IOException {
    String source =
        Files.readString(
            Path.of("src/test/java/dev/onceonly/spring/app", file), StandardCharsets.UTF_8);
    List<String> lines =
        source
            .substring(source.indexOf(start) + start.length(), source.indexOf(end))
            .strip()
            .lines()
            .toList();
    String first =
        source.substring(0, source.indexOf(start)).lines().reduce((a, b) -> b).orElse("");
    int indent = first.length() - first.stripLeading().length();
    return lines.stream()
        .map(
            line ->
                line.length() >= indent && line.substring(0, indent).isBlank()
                    ? line.substring(indent)
                    : line)
        .collect(Collectors.joining("\n"));
  }

  @Test
  void theServiceAndTheWorkerBeanAreShownVerbatim() throws IOException {
    assertThat(docs())
        .contains(
            "```java\n"
                + region(
                    "OrderService.java",
                    "// ---- docs/spring.md, a @Transactional service ----\n",
                    "  // ---- end of the docs/spring.md example ----")
                + "\n```")
        .contains(
            "```java\n"
                + region(
                    "ShippingHandler.java",
                    "// ---- docs/spring.md, a worker bean ----\n",
                    "// ---- end of the docs/spring.md worker bean ----")
                + "\n```");
  }

  @Test
  void theReadmeShowsTheSameService() throws IOException {
    assertThat(Files.readString(Path.of("README.md"), StandardCharsets.UTF_8))
        .contains(
            "```java\n"
                + region(
                    "OrderService.java",
                    "// ---- docs/spring.md, a @Transactional service ----\n",
                    "  // ---- end of the docs/spring.md example ----")
                + "\n```");
  }

  @Test
  void theDocumentedPropertiesBind() throws IOException {
    String docs = docs();
    ApplicationContextRunner runner =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    OnceOnlyAutoConfiguration.class, OnceOnlyHttpAutoConfiguration.class))
            .withBean(
                DataSource.class,
                () ->
                    OnceOnlyAutoConfigurationTest.sqlite(
                        dir.resolve("docs.db"), SQLiteConfig.TransactionMode.IMMEDIATE))
            .withBean(
                PlatformTransactionManager.class,
                () ->
                    new DataSourceTransactionManager(
                        OnceOnlyAutoConfigurationTest.sqlite(
                            dir.resolve("docs.db"), SQLiteConfig.TransactionMode.IMMEDIATE)));
    runner.run(context -> assertThat(context).hasNotFailed()); // the schema, for "validate"
    List<String> blocks = List.of(docs.split("```properties\n"));
    for (String block : blocks.subList(1, blocks.size())) {
      String[] properties =
          block
              .substring(0, block.indexOf("```"))
              .lines()
              .filter(l -> l.startsWith("onceonly."))
              .toArray(String[]::new);
      runner
          .withPropertyValues(properties)
          .run(
              context -> {
                assertThat(context).as(String.join(", ", properties)).hasNotFailed();
                if (String.join("\n", properties).contains("onceonly.http.routes")) {
                  assertThat(context).hasSingleBean(IdempotencyFilter.class);
                }
              });
    }
  }
}
