package dev.onceonly.external;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.FakeProvider;
import dev.onceonly.testing.ProviderWorker;
import dev.onceonly.testing.ProviderWorker.Charge;
import dev.onceonly.testing.SqliteContractDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A worker process claims, sends the request, and is killed with SIGKILL before it completes. The
 * parent's clock then runs past the lease.
 */
class ClaimCrashTest extends ExternalTestSupport {

  /** On SQLite only: the child process and this test share the file. */
  @Override
  ContractDatabase newDatabase() {
    return SqliteContractDatabase.in(dir);
  }

  /** Runs {@link ClaimThenHang} for {@code key}, waits for its READY line, then kills it. */
  private String crashAfterSending(IntentKey key, String operation, Path providerLog)
      throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Path err = dir.resolve("child-" + key.key() + ".err");
    Process child =
        new ProcessBuilder(
                java.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                ClaimThenHang.class.getName(),
                file().toString(),
                providerLog.toString(),
                Long.toString(START.toEpochMilli()),
                operation,
                key.scope(),
                key.key(),
                Long.toString(LEASE.toMillis()))
            .redirectError(err.toFile())
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line = CompletableFuture.supplyAsync(() -> readLine(out)).get(60, TimeUnit.SECONDS);
      assertThat(line)
          .as("child said: %s; stderr: %s", line, Files.readString(err))
          .startsWith("READY 1 ");
      return line.substring("READY 1 ".length());
    } finally {
      child.destroyForcibly(); // SIGKILL: no shutdown hook, no close, no complete
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static String readLine(BufferedReader in) {
    try {
      return in.readLine();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void anUnsafeEffectWhoseWorkerDiedIsUnknownWithEvidenceAndNotRunAgain() throws Exception {
    IntentKey key = IntentKey.of("u-1", "crash");
    Path log = dir.resolve("provider.log");
    String downstream = crashAfterSending(key, CHARGE, log);
    assertThat(downstream).isEqualTo(ExternalEffects.downstreamKey(key));

    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("IN_PROGRESS");
    assertThat(num(row, "fence")).isEqualTo(1);

    FakeProvider provider = FakeProvider.logged(log, false);
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      assertThat(effects.claim(key, CHARGE, ARGS, LEASE))
          .as("the dead worker's lease is still live")
          .isInstanceOf(ClaimOutcome.InProgress.class);
      clock.advance(LEASE);
      ClaimOutcome after = effects.claim(key, CHARGE, ARGS, LEASE);
      assertThat(after).isInstanceOf(ClaimOutcome.Unknown.class);
      ClaimOutcome.Unknown unknown = (ClaimOutcome.Unknown) after;
      assertThat(unknown.attempts()).isEqualTo(1);
      assertThat(unknown.downstreamKey()).isEqualTo(downstream);
      assertThat(unknown.lastError())
          .isEqualTo(
              "lease of attempt 1 (fence 1) ran out at "
                  + START.plus(LEASE)
                  + " without completion");
      assertThat(effects.claim(key, CHARGE, ARGS, LEASE))
          .as("asking again does not run it again")
          .isInstanceOf(ClaimOutcome.Unknown.class);
    }
    row = row(key);
    assertThat(row.get("state")).isEqualTo("UNKNOWN");
    assertThat(num(row, "maybe_applied")).isEqualTo(1);
    assertThat(num(row, "attempts")).isEqualTo(1);
    assertThat(provider.received(downstream)).isEqualTo(1);

    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects();
      String resource = provider.lookup(downstream).orElseThrow();
      assertThat(effects.resolveDone(key, new Charge(resource))).contains(ClaimState.COMPLETED);
      assertThat(effects.claim(key, CHARGE, ARGS, LEASE)).isInstanceOf(ClaimOutcome.Repeated.class);
    }
    assertThat(provider.effects(downstream)).isEqualTo(1);
    assertNoEffectTwice(provider);
  }

  @Test
  void aSafeEffectWhoseWorkerDiedIsClaimedAgainWithTheSameDownstreamKey() throws Exception {
    IntentKey key = IntentKey.of("u-1", "crash-safe");
    Path log = dir.resolve("provider-safe.log");
    String downstream = crashAfterSending(key, CHARGE_SAFE, log);

    FakeProvider provider = FakeProvider.logged(log, true);
    try (OnceOnly once = open()) {
      ExternalEffects effects = once.externalEffects(POLICY);
      clock.advance(LEASE);
      Claim again = claimed(effects.claim(key, CHARGE_SAFE, ARGS, LEASE));
      assertThat(again.fence()).isEqualTo(2);
      assertThat(again.attempt()).isEqualTo(2);
      assertThat(again.downstreamKey()).isEqualTo(downstream);
      assertThat(ProviderWorker.run(effects, provider, again, BODY))
          .isEqualTo(new Settlement.Completed(key, 2, "{\"resource\":\"res-1\"}"));
    }
    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("COMPLETED");
    assertThat(num(row, "maybe_applied")).isEqualTo(1);
    assertThat(provider.received(downstream)).isEqualTo(2);
    assertThat(provider.effects(downstream))
        .as("the provider deduplicated the resend")
        .isEqualTo(1);
    assertThat(provider.requests().get(1).answer()).isEqualTo("deduplicated:res-1");
    assertNoEffectTwice(provider);
  }
}
