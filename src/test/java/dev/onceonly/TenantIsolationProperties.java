package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.external.Claim;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.IntentSteps;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tenant isolation as a differential property: seeded random sequences of calls by three scopes
 * that share their keys, run interleaved on one database, must give each scope exactly the answers
 * and the rows it gets when its own calls run alone on an empty database. If any call of one scope
 * could read, repeat, complete or cancel another scope's intent (receipts, registered intents, the
 * queue's intent messages, external claims), some scope's answers or rows would change.
 */
class TenantIsolationProperties {
  private static final List<String> SCOPES = List.of("tenant-a", "tenant-b", "tenant-c");
  private static final String QUEUE = "tenants";
  private static final Duration LEASE = Duration.ofSeconds(30);

  @TempDir Path dir;

  /** One call by one scope. */
  record Call(String scope, int op, String key, int value) {}

  @Test
  void noSequenceOfCallsLetsOneScopeTouchAnothersIntents() {
    int[] trialNo = {0};
    Trials.forAll(
        15,
        t -> {
          List<Call> calls = t.input("calls", calls(t.random()));
          Path trialDir = Files.createDirectories(dir.resolve("t" + trialNo[0]++));
          Map<String, List<String>> together = run(trialDir.resolve("together.db"), calls);
          for (String scope : SCOPES) {
            List<Call> own = calls.stream().filter(c -> c.scope().equals(scope)).toList();
            Map<String, List<String>> alone = run(trialDir.resolve(scope + ".db"), own);
            assertThat(together.get(scope))
                .as("what %s saw and holds, with the others and alone", scope)
                .isEqualTo(alone.get(scope));
          }
        });
  }

  private static List<Call> calls(SplittableRandom r) {
    List<Call> calls = new ArrayList<>();
    int n = 20 + r.nextInt(40);
    for (int i = 0; i < n; i++) {
      calls.add(
          new Call(
              SCOPES.get(r.nextInt(SCOPES.size())),
              r.nextInt(9),
              "k-" + r.nextInt(4),
              r.nextInt(2)));
    }
    return calls;
  }

  /** Runs the calls on a new database; returns, per scope, its answers and then its rows. */
  private static Map<String, List<String>> run(Path file, List<Call> calls) throws SQLException {
    Map<String, List<String>> seen = new LinkedHashMap<>();
    SCOPES.forEach(s -> seen.put(s, new ArrayList<>()));
    Map<IntentKey, Claim> held = new HashMap<>();
    try (OnceOnly once =
        OnceOnly.builder()
            .sqlite(file)
            .synchronous(OnceOnly.Synchronous.NORMAL) // durability is not what is tested here
            .clock(MutableClock.at("2026-11-30T12:00:00Z"))
            .build()) {
      Db.exec(file, "CREATE TABLE tenant_effects (scope TEXT, intent_key TEXT, v INTEGER)");
      for (Call call : calls) {
        seen.get(call.scope()).add(call + " -> " + apply(once, call, held));
      }
      drain(once);
    }
    for (String scope : SCOPES) {
      for (String table : List.of("onceonly_receipts", "onceonly_intents", "onceonly_claims")) {
        seen.get(scope)
            .addAll(
                Db.strings(
                    file,
                    "SELECT intent_key || ' ' || fingerprint || ' ' || "
                        + (table.equals("onceonly_receipts")
                            ? "COALESCE(result, '-')"
                            : table.equals("onceonly_claims") ? "state || ' ' || fence" : "'-'")
                        + " FROM "
                        + table
                        + " WHERE scope = '"
                        + scope
                        + "' ORDER BY intent_key"));
      }
      seen.get(scope)
          .addAll(
              Db.strings(
                  file,
                  "SELECT intent_key || ' ' || v FROM tenant_effects WHERE scope = '"
                      + scope
                      + "' ORDER BY intent_key, v"));
    }
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
    return seen;
  }

  private static String apply(OnceOnly once, Call call, Map<IntentKey, Claim> held)
      throws SQLException {
    IntentKey key = IntentKey.of(call.scope(), call.key());
    Map<String, Object> args = Map.of("v", call.value());
    return switch (call.op()) {
      case 0 -> execute(once, key, args, call.value()).toString();
      case 1 -> once.receipts().find(key).map(Receipt::toString).orElse("none");
      case 2 -> once.intents().register(key, "change", args).toString();
      case 3 -> once.intents().find(key).map(Intent::toString).orElse("none");
      case 4 ->
          once.intents()
              .find(key)
              .map(i -> IntentMessage.publisher(once.queue(), QUEUE).publish(i).name())
              .orElse("not registered");
      case 5 -> {
        ClaimOutcome outcome = once.externalEffects().claim(key, "notify", args, LEASE);
        if (outcome instanceof ClaimOutcome.Claimed claimed) {
          held.put(key, claimed.claim());
        }
        yield outcome.toString();
      }
      case 6 ->
          held.containsKey(key)
              ? once.externalEffects()
                  .complete(held.remove(key), Map.of("by", key.scope()))
                  .toString()
              : "no claim held";
      case 7 -> once.externalEffects().cancel(key, "changed mind").toString();
      default -> once.externalEffects().find(key).map(Object::toString).orElse("none");
    };
  }

  private static Outcome<String> execute(OnceOnly once, IntentKey key, Object args, int v)
      throws SQLException {
    return once.receipts().execute(key, "change", args, String.class, tx -> effect(tx, key, v));
  }

  private static String effect(Connection tx, IntentKey key, int v) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO tenant_effects (scope, intent_key, v) VALUES (?, ?, ?)")) {
      ps.setString(1, key.scope());
      ps.setString(2, key.key());
      ps.setInt(3, v);
      ps.executeUpdate();
    }
    return key.scope() + "/" + key.key() + "=" + v;
  }

  /** Works off every queued intent message, each with a receipts step under its own intent. */
  private static void drain(OnceOnly once) throws SQLException {
    for (List<Delivery> batch = once.queue().receive(QUEUE, 100, LEASE);
        !batch.isEmpty();
        batch = once.queue().receive(QUEUE, 100, LEASE)) {
      for (Delivery d : batch) {
        IntentMessage m = IntentMessage.decode(d.payload());
        once.queue()
            .complete(
                d.lease(),
                tx ->
                    IntentSteps.execute(
                        once,
                        tx,
                        m,
                        String.class,
                        c -> effect(c, m.key(), m.arguments().get("v").asInt())));
      }
    }
  }
}
