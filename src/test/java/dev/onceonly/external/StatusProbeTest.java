package dev.onceonly.external;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.queue.IntentMessage;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Status probes against a provider over real HTTP ({@link ChargeServer}) that charged some requests
 * and lost the answers, and lost others before charging: the probes settle every unknown claim as
 * the provider's records say, nothing is charged twice, and a provider that is down, or a probe
 * that hangs, leaves the claims unknown with the reason stored and published. Every assertion on
 * the claims reads the rows back through a connection of the test's own, after a restart.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
class StatusProbeTest extends ExternalTestSupport {
  private final ChargeServer provider = new ChargeServer().start();
  private final HttpClient http = HttpClient.newHttpClient();
  private final List<OnceOnlyEvent.ClaimProbed> probed = new CopyOnWriteArrayList<>();
  private final io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
      new io.micrometer.core.instrument.simple.SimpleMeterRegistry();

  @AfterEach
  void stopProvider() {
    provider.close();
  }

  /** The probe a user would write: looks the downstream key up at the provider. */
  static StatusProbe lookup(HttpClient http, Supplier<URI> base) {
    return claim -> {
      HttpRequest get =
          HttpRequest.newBuilder(base.get().resolve("/charges/" + claim.downstreamKey())).build();
      HttpResponse<String> r = http.send(get, HttpResponse.BodyHandlers.ofString());
      return switch (r.statusCode()) {
        case 200 -> ProbeAnswer.applied(ChargeServer.map(r.body()));
        case 404 -> ProbeAnswer.notApplied("the provider has no charge under the key");
        default -> ProbeAnswer.stillUnknown("HTTP " + r.statusCode());
      };
    };
  }

  private OnceOnly openProbing(ProbePolicy policy) {
    return openProbing(policy, lookup(http, provider::base));
  }

  private OnceOnly openProbing(ProbePolicy policy, StatusProbe probe) {
    return db.builder()
        .clock(clock)
        .statusProbe(CHARGE, probe)
        .probePolicy(policy)
        .listener(dev.onceonly.micrometer.OnceOnlyMetrics.of(registry))
        .listener(
            e -> {
              if (e instanceof OnceOnlyEvent.ClaimProbed p) {
                probed.add(p);
              }
            })
        .build();
  }

  private static final ProbePolicy POLICY =
      new ProbePolicy(Duration.ofSeconds(20), Duration.ofMinutes(1), Duration.ofMinutes(30));

  /** Claims and charges each key once over HTTP, as a worker would. */
  private List<Settlement> chargeAll(OnceOnly once, List<IntentKey> keys) {
    List<Settlement> out = new ArrayList<>();
    for (IntentKey key : keys) {
      ClaimOutcome o = once.externalEffects().claim(key, CHARGE, ARGS, LEASE);
      if (o instanceof ClaimOutcome.Claimed c) {
        out.add(ChargeServer.charge(once.externalEffects(), c.claim(), http, provider.base()));
      }
    }
    return out;
  }

  private static List<IntentKey> keys(String prefix, int n) {
    List<IntentKey> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(IntentKey.of("u-1", prefix + "-" + i));
    }
    return keys;
  }

  private static String dk(IntentKey key) {
    return ExternalEffects.downstreamKey(key);
  }

  /** Makes the provider lose the answer of every key (charged) or the request (not charged). */
  private void lose(List<IntentKey> keys, Consumer<String> how) {
    keys.forEach(k -> how.accept(dk(k)));
  }

  @Test
  void theReconcilerSettlesEveryUnknownClaimAsTheProvidersRecordsSay() throws Exception {
    List<IntentKey> answered = keys("answered", 6);
    List<IntentKey> charged = keys("charged", 6);
    List<IntentKey> lost = keys("lost", 6);
    List<IntentKey> all = new ArrayList<>(answered);
    all.addAll(charged);
    all.addAll(lost);
    lose(charged, provider::loseAnswer);
    lose(lost, provider::dropRequest);
    try (OnceOnly once = open()) {
      chargeAll(once, all);
    }
    for (IntentKey k : charged) {
      assertThat(row(k).get("state")).as("%s", k).isEqualTo("UNKNOWN");
    }

    provider.heal();
    try (OnceOnly once = openProbing(POLICY)) {
      Reconciler reconciler =
          Reconciler.builder(once.intents(), IntentMessage.publisher(once.queue(), "charges"))
              .afterEachPass(once.externalEffects()::resolveUnknown)
              .build();
      reconciler.reconcile();
      assertThat(once.events().drain(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(probed).hasSize(12).allMatch(p -> p.settled() && p.operation().equals(CHARGE));
    for (String answer : List.of("applied", "not_applied")) {
      assertThat(
              registry
                  .get("onceonly.external.probes")
                  .tags("operation", CHARGE, "answer", answer)
                  .timer()
                  .count())
          .as("probes answered %s", answer)
          .isEqualTo(6);
    }

    for (IntentKey k : charged) {
      Map<String, Object> row = row(k);
      assertThat(row.get("state")).as("%s", k).isEqualTo("COMPLETED");
      assertThat(ChargeServer.map((String) row.get("result")))
          .isEqualTo(provider.charges(dk(k)).get(0));
      assertThat(row.get("last_probe_answer")).isEqualTo("applied");
    }
    for (IntentKey k : lost) {
      Map<String, Object> row = row(k);
      assertThat(row.get("state")).as("%s", k).isEqualTo("RETRY_WAIT");
      assertThat(num(row, "maybe_applied")).isZero();
      assertThat(row.get("last_error"))
          .isEqualTo(
              "resolved as not done: status probe: the provider has no charge under the key");
    }

    try (OnceOnly once = open()) { // the workers come back: only the lost ones are charged again
      assertThat(chargeAll(once, all)).hasSize(6).allMatch(s -> s instanceof Settlement.Completed);
    }
    for (IntentKey k : all) {
      assertThat(provider.charges(dk(k))).as("charges under %s", k).hasSize(1);
      Map<String, Object> row = row(k);
      assertThat(row.get("state")).isEqualTo("COMPLETED");
      assertThat(ChargeServer.map((String) row.get("result")))
          .isEqualTo(provider.charges(dk(k)).get(0));
    }
  }

  @Test
  void aProviderThatIsDownLeavesTheClaimsUnknownAndTheStoredBackoffHoldsAcrossARestart() {
    List<IntentKey> keys = keys("down", 4);
    lose(keys, provider::loseAnswer);
    try (OnceOnly once = open()) {
      chargeAll(once, keys);
    }
    provider.stop();
    try (OnceOnly once = openProbing(POLICY)) {
      assertThat(once.externalEffects().resolveUnknown())
          .isEqualTo(new ProbeReport(4, 0, 0, 0, 4, 0, 0));
      assertThat(once.externalEffects().resolveUnknown()).isEqualTo(ProbeReport.NONE);
      assertThat(once.events().drain(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(probed)
        .hasSize(4)
        .allMatch(p -> p.answer().equals("failed") && !p.settled())
        .allMatch(p -> p.reason().contains("ConnectException"));
    long next = 0;
    for (IntentKey k : keys) {
      Map<String, Object> row = row(k);
      assertThat(row.get("state")).isEqualTo("UNKNOWN");
      assertThat((String) row.get("last_probe_answer"))
          .startsWith("failed: java.net.ConnectException");
      assertThat(num(row, "probes")).isEqualTo(1);
      assertThat(num(row, "next_probe_at"))
          .isBetween(START.plusSeconds(30).toEpochMilli(), START.plusSeconds(60).toEpochMilli());
      next = Math.max(next, num(row, "next_probe_at"));
    }

    provider.start(); // back, on a new port; the probe follows it
    try (OnceOnly once = openProbing(POLICY)) { // a restart does not probe hot
      assertThat(once.externalEffects().resolveUnknown()).isEqualTo(ProbeReport.NONE);
    }
    keys.forEach(k -> assertThat(provider.lookups(dk(k))).isZero());

    clock.set(java.time.Instant.ofEpochMilli(next));
    try (OnceOnly once = openProbing(POLICY)) {
      assertThat(once.externalEffects().resolveUnknown())
          .isEqualTo(new ProbeReport(4, 4, 0, 0, 0, 0, 0));
    }
    for (IntentKey k : keys) {
      assertThat(row(k).get("state")).isEqualTo("COMPLETED");
      assertThat(provider.charges(dk(k))).hasSize(1);
      assertThat(provider.lookups(dk(k))).isEqualTo(1);
    }
  }

  @Test
  void aHangingProbeIsCutOffAtItsTimeoutAndTheClaimStaysUnknown() {
    IntentKey key = IntentKey.of("u-1", "hang");
    provider.loseAnswer(dk(key));
    try (OnceOnly once = open()) {
      chargeAll(once, List.of(key));
    }
    provider.hangLookups(true);
    ProbePolicy quick =
        new ProbePolicy(Duration.ofMillis(300), Duration.ofMinutes(1), Duration.ofMinutes(30));
    try (OnceOnly once = openProbing(quick)) {
      assertThat(once.externalEffects().resolveUnknown())
          .isEqualTo(new ProbeReport(1, 0, 0, 0, 0, 1, 0));
      assertThat(once.events().drain(Duration.ofSeconds(10))).isTrue();
      assertThat(once.externalEffects().find(key).orElseThrow().lastProbeAnswer())
          .isEqualTo("timed out: no answer within 300 ms");
    }
    assertThat(probed)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.answer()).isEqualTo("timed_out");
              assertThat(p.settled()).isFalse();
              assertThat(p.reason()).isEqualTo("no answer within 300 ms");
            });
    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("UNKNOWN");
    assertThat(row.get("last_probe_answer")).isEqualTo("timed out: no answer within 300 ms");
    assertThat(provider.lookups(dk(key))).isEqualTo(1);
  }

  @Test
  void aProbeRunsOutsideAnyTransactionAndAnOperatorWhoResolvesMeanwhileWins() {
    IntentKey key = IntentKey.of("u-1", "meanwhile");
    provider.loseAnswer(dk(key));
    try (OnceOnly once = open()) {
      chargeAll(once, List.of(key));
    }
    List<Object> operator = new CopyOnWriteArrayList<>();
    OnceOnly[] self = new OnceOnly[1];
    StatusProbe lookup = lookup(http, provider::base);
    StatusProbe resolvingMeanwhile =
        claim -> {
          // the operator settles the claim while the probe is out: on SQLite's single writer, or
          // behind PostgreSQL's and MariaDB's lock of the key, this waits if a transaction is open
          operator.add(
              self[0].externalEffects().resolveDone(claim.key(), Map.of("by", "operator")));
          return lookup.probe(claim);
        };
    ProbePolicy policy =
        new ProbePolicy(Duration.ofSeconds(20), Duration.ofMinutes(1), Duration.ofMinutes(30));
    try (OnceOnly once = openProbing(policy, resolvingMeanwhile)) {
      self[0] = once;
      assertThat(once.externalEffects().resolveUnknown())
          .isEqualTo(new ProbeReport(1, 0, 0, 0, 0, 0, 1));
      assertThat(once.events().drain(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(operator).containsExactly(java.util.Optional.of(ClaimState.COMPLETED));
    assertThat(probed).singleElement().matches(p -> p.answer().equals("applied") && !p.settled());
    Map<String, Object> row = row(key);
    assertThat(row.get("state")).isEqualTo("COMPLETED");
    assertThat(row.get("result")).isEqualTo("{\"by\":\"operator\"}");
  }

  @Test
  void anOperatorAndTwoInstancesRacingOnTheSameClaimsSettleEachOnce() throws Exception {
    List<IntentKey> keys = keys("race", 16);
    lose(keys, provider::loseAnswer);
    try (OnceOnly once = open()) {
      chargeAll(once, keys);
    }
    provider.heal();
    try (OnceOnly a = openProbing(POLICY);
        OnceOnly b = openProbing(POLICY);
        OnceOnly operator = open()) {
      List<Object> results =
          dev.onceonly.testing.Race.run(
              3,
              i ->
                  () -> {
                    if (i < 2) {
                      return (i == 0 ? a : b).externalEffects().resolveUnknown();
                    }
                    List<java.util.Optional<ClaimState>> answers = new ArrayList<>();
                    for (int k = keys.size() - 1; k >= 0; k--) {
                      answers.add(
                          0,
                          operator
                              .externalEffects()
                              .resolveDone(keys.get(k), Map.of("by", "operator")));
                    }
                    return answers;
                  });
      ProbeReport ra = (ProbeReport) results.get(0);
      ProbeReport rb = (ProbeReport) results.get(1);
      @SuppressWarnings("unchecked")
      List<java.util.Optional<ClaimState>> ops =
          (List<java.util.Optional<ClaimState>>) results.get(2);
      long operatorWins = ops.stream().filter(java.util.Optional::isPresent).count();
      assertThat(operatorWins + ra.settled() + rb.settled()).isEqualTo(keys.size());
      for (int k = 0; k < keys.size(); k++) {
        IntentKey key = keys.get(k);
        Map<String, Object> row = row(key);
        assertThat(row.get("state")).isEqualTo("COMPLETED");
        Map<?, ?> result = ChargeServer.map((String) row.get("result"));
        if (ops.get(k).isPresent()) {
          assertThat(result).isEqualTo(Map.of("by", "operator"));
        } else {
          assertThat(result).isEqualTo(provider.charges(dk(key)).get(0));
        }
        assertThat(provider.lookups(dk(key))).as("probes of %s", key).isLessThanOrEqualTo(1);
        assertThat(provider.charges(dk(key))).hasSize(1);
      }
      System.out.printf(
          "race on %s: operator %d, instance a %d (elsewhere %d), instance b %d (elsewhere %d)%n",
          db.dialect(),
          operatorWins,
          ra.settled(),
          ra.settledElsewhere(),
          rb.settled(),
          rb.settledElsewhere());
    }
  }
}
