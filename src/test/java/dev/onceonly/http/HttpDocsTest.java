package dev.onceonly.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/http.md shows {@link HttpDocsExample} as it is, documents every problem type the filter
 * answers with under the anchor its {@code type} links to, and its example builds.
 */
class HttpDocsTest {
  @TempDir Path dir;

  static String docs() throws IOException {
    return Files.readString(Path.of("docs/http.md"), StandardCharsets.UTF_8);
  }

  static String region() throws IOException {
    String source =
        Files.readString(
            Path.of("src/test/java/dev/onceonly/http/HttpDocsExample.java"),
            StandardCharsets.UTF_8);
    String start = "// ---- docs/http.md, plain mode ----\n";
    List<String> lines =
        source
            .substring(
                source.indexOf(start) + start.length(),
                source.indexOf("    // ---- end of the docs/http.md example ----"))
            .lines()
            .toList();
    return lines.stream()
        .map(l -> l.length() >= 4 ? l.substring(4) : l.strip())
        .collect(Collectors.joining("\n"));
  }

  @Test
  void thePlainSetupIsShownVerbatim() throws IOException {
    assertThat(docs()).contains("```java\n" + region() + "\n```");
  }

  @Test
  void theExampleBuilds() {
    IdempotencyFilter filter =
        HttpDocsExample.filter(dir.resolve("docs.db"), new ServletContextHandler());
    assertThat(filter.routes()).extracting(Route::name).containsExactly("payments", "orders");
  }

  @Test
  void everyProblemTypeHasItsSection() throws IOException {
    String docs = docs();
    for (Problem p : Problem.values()) {
      assertThat(docs).as(p.slug).contains("\n### " + p.slug + "\n");
      assertThat(docs).as(p.slug).contains("| " + p.status + " ");
    }
  }
}
