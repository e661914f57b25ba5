package dev.onceonly.external;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.FakeProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * The child process of {@link ClaimCrashTest}: claims an intent, sends the request to a logged
 * {@link FakeProvider}, says {@code READY}, and then hangs before completing until it is killed.
 *
 * <p>Arguments: database file, provider log, clock millis, operation, scope, key, lease millis.
 */
public final class ClaimThenHang {
  private ClaimThenHang() {}

  public static void main(String[] args) throws Exception {
    InstantSource clock = InstantSource.fixed(Instant.ofEpochMilli(Long.parseLong(args[2])));
    String operation = args[3];
    OnceOnly once =
        OnceOnly.builder()
            .sqlite(Path.of(args[0]))
            .clock(clock)
            .safeToRepeat(ExternalTestSupport.CHARGE_SAFE)
            .build();
    ClaimOutcome outcome =
        once.externalEffects()
            .claim(
                IntentKey.of(args[4], args[5]),
                operation,
                ExternalTestSupport.ARGS,
                Duration.ofMillis(Long.parseLong(args[6])));
    Claim claim = ((ClaimOutcome.Claimed) outcome).claim();
    FakeProvider provider =
        FakeProvider.logged(Path.of(args[1]), operation.equals(ExternalTestSupport.CHARGE_SAFE));
    provider.call(claim.downstreamKey(), operation, ExternalTestSupport.BODY);
    System.out.println("READY " + claim.fence() + " " + claim.downstreamKey());
    System.out.flush();
    System.in.read(); // the parent never writes: hang here, between the call and complete
    once.close();
  }
}
