package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.readme.ChargeTarget;
import dev.onceonly.readme.ChargeTargets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code onceonly crash-test}: a short run on the right charge target reports clean JSON with exit
 * status 0 and leaves its database where it was asked; a target that cannot be loaded is one line
 * on stderr with status 2.
 */
class CrashTestCommandTest {
  @TempDir Path dir;

  @Test
  void aShortRunOnTheRightTargetIsCleanAndSaysWhereItKilled() throws Exception {
    Path db = dir.resolve("crash.db");
    CliRun run =
        CliRun.of(
            "crash-test",
            "--target",
            ChargeTarget.class.getName(),
            "--effects-query",
            ChargeTargets.EFFECTS,
            "--kills",
            "3",
            "--keys",
            "8",
            "--db",
            db.toString(),
            "--json");
    assertThat(run.status()).as("%s", run).isZero();
    JsonNode doc = new ObjectMapper().readTree(run.out());
    assertThat(doc.get("clean").asBoolean()).isTrue();
    assertThat(doc.get("kills").asInt()).isEqualTo(3);
    assertThat(doc.get("keys").asInt()).isEqualTo(8);
    assertThat(doc.get("duplicates").asLong()).isZero();
    assertThat(doc.get("lost").asLong()).isZero();
    assertThat(doc.get("killPoints").size()).isPositive();
    assertThat(Files.exists(db)).isTrue();
  }

  @Test
  void aTargetThatCannotBeLoadedIsAUsageError() {
    CliRun run =
        CliRun.of(
            "crash-test",
            "--target",
            "com.example.NoSuchTarget",
            "--effects-query",
            ChargeTargets.EFFECTS,
            "--kills",
            "1",
            "--db",
            dir.resolve("none.db").toString());
    assertThat(run.status()).as("%s", run).isEqualTo(2);
    assertThat(run.err()).contains("a child JVM exited with status 1");
  }
}
