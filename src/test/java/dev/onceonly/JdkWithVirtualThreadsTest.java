package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The tests of handlers on virtual threads ({@code *OnJdk21IT}) run in verify on a second JDK, 21
 * or newer (the pom's {@code jdk21-tests} profile, active where that JDK is installed). Where it is
 * not, they do not run: locally this test says so in one skipped line, and under {@code CI=true} it
 * fails, since CI must run them.
 */
class JdkWithVirtualThreadsTest {
  @Test
  void theJdkTheVirtualThreadTestsRunOnIsThere() {
    Path java =
        Path.of(
            System.getProperty(
                "onceonly.jdk21.java", "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));
    boolean present = Files.isExecutable(java);
    if ("true".equals(System.getenv("CI"))) {
      assertThat(present)
          .as("CI runs the virtual-thread tests on %s, which is missing", java)
          .isTrue();
    }
    assumeTrue(present, "no JDK 21+ at " + java + ": the *OnJdk21IT tests did not run");
  }
}
