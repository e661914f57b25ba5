package dev.onceonly.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** README.md's "Testing your own code with it" shows {@link ChargeHandlerTest}, which runs. */
class ReadmeTestingExampleTest {
  /** README.md shows the example of ChargeHandlerTest as it is there. */
  @Test
  void theReadmeShowsThisExampleVerbatim() throws Exception {
    String source =
        Files.readString(
            Path.of("src/test/java/dev/onceonly/readme/ChargeHandlerTest.java"),
            StandardCharsets.UTF_8);
    String start = "// ---- README.md, Testing your own code with it ----\n";
    String end = "// ---- end of the README example ----";
    String example =
        source.substring(source.indexOf(start) + start.length(), source.indexOf(end)).strip();
    String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
    assertThat(readme).contains("```java\n" + example + "\n```");
  }
}
