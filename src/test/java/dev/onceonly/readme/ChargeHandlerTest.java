package dev.onceonly.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Drain;
import dev.onceonly.testing.DrainStep;
import dev.onceonly.testing.MutableClock;
import dev.onceonly.testing.OnceOnlyAssertions;
import dev.onceonly.testing.OnceOnlyTest;
import dev.onceonly.testing.Reopen;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/*
 * The example of README.md's "Testing your own code with it", written as an application's test is
 * (the public API and the testing kit only), compiled and run; README.md shows the part between
 * the markers verbatim (ReadmeTestingExampleTest checks it). Change both together.
 */
// ---- README.md, Testing your own code with it ----

@OnceOnlyTest // a fresh SQLite store per test, its clock standing at 2026-01-01T00:00:00Z
class ChargeHandlerTest {
  @Test
  void aFailedChargeIsRetriedAndChargedOnce(OnceOnly once, MutableClock clock, Reopen reopen)
      throws Exception {
    Charges.createTable(once);
    once.queue().send("charges", "order-7", Map.of("order", "order-7", "cents", 1250));

    // the provider fails the first call: a retry after backoff, then the charge
    List<DrainStep> steps =
        Drain.of(once.queue(), "charges", new ChargeHandler(once, 1)).movingClock(clock).run();
    assertThat(steps)
        .extracting(DrainStep::retried, DrainStep::completed)
        .containsExactly(tuple(true, false), tuple(false, true));

    OnceOnly restarted = reopen.reopen(); // what a restarted process finds
    OnceOnlyAssertions.assertOnce(
        restarted, ChargeHandler.key("order-7"), "SELECT COUNT(*) FROM charges WHERE order_id = ?");
    OnceOnlyAssertions.assertNoDeadLetters(restarted, "charges");
    OnceOnlyAssertions.assertNoPendingIntents(restarted);
  }
}

// ---- end of the README example ----
