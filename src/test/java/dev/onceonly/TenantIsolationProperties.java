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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tenant isolation as a differential property: seeded random sequences of calls by several scopes
 * that share their keys, run interleaved on one database, must give each scope exactly the answers
 * and the rows it gets when its own calls run alone on an empty database. If any call of one scope
 * could read, repeat, complete or cancel another scope's intent (receipts, registered intents, the
 * queue's intent messages, external claims), some scope's answers or rows would change.
 *
 * <p>Half the trials use the default patterns and plain tenants; the others widen the scope and key
 * patterns to what a user might configure ({@code [^\s]{1,64}} and friends) and draw scopes and
 * keys that hold the separators of composite keys ({@code a/b} with {@code c} against {@code a}
 * with {@code b/c}), escape-like text, unpaired surrogates that a driver would turn into the same
 * {@code ?}, and control characters. Each of those either works in isolation or is refused, the
 * same way alone and together.
 */
class TenantIsolationProperties {
  private static final List<String> PLAIN_SCOPES = List.of("tenant-a", "tenant-b", "tenant-c");
  private static final List<String> PLAIN_KEYS = List.of("k-0", "k-1", "k-2", "k-3");
  private static final List<String> WIDE_PATTERNS =
      List.of("[^\\s]{1,64}", "(?s).{1,64}", "[^\\s]{0,64}", "\\S{1,64}");

  /** Scopes that meet one another when a composite key or a driver's encoding is ambiguous. */
  private static final List<List<String>> SCOPE_RIVALS =
      List.of(
          List.of("a/b", "a", "a/b/c"),
          List.of("t\ud800", "t\udbff", "t?"),
          List.of("x\u0000y", "x\u0001y", "x"),
          List.of("a@2f.b", "a/b", "u:a@2f.b"),
          List.of("tenant-a", "tenant-a/", "tenant-a\u007f"));

  /** Keys drawn with the rivals, so that a scope's separator can be the other one's key's. */
  private static final List<String> WIDE_KEYS =
      List.of("c", "b/c", "/c", "b", "k\udc00", "k\udfff", "k-0", "c\u0000", "@@c");

  private static final String QUEUE = "tenants";
  private static final Duration LEASE = Duration.ofSeconds(30);

  @TempDir Path dir;

  /** One call by one scope. */
  record Call(String scope, int op, String key, int value) {
    @Override
    public String toString() {
      return "Call["
          + Trials.show(scope)
          + ", "
          + op
          + ", "
          + Trials.show(key)
          + ", "
          + value
          + "]";
    }
  }

  /** A trial's tenants and keys, and the patterns they are checked against. */
  record World(String scopePattern, String keyPattern, List<String> scopes, List<String> keys) {}

  @Test
  void noSequenceOfCallsLetsOneScopeTouchAnothersIntents() {
    int[] trialNo = {0};
    Trials.forAll(
        20,
        t -> {
          World world = t.input("world", world(t.random()));
          List<Call> calls = t.input("calls", calls(t.random(), world));
          Path trialDir = Files.createDirectories(dir.resolve("t" + trialNo[0]++));
          Map<String, List<String>> together = run(trialDir.resolve("together.db"), world, calls);
          for (int i = 0; i < world.scopes().size(); i++) {
            String scope = world.scopes().get(i);
            List<Call> own = calls.stream().filter(c -> c.scope().equals(scope)).toList();
            Map<String, List<String>> alone = run(trialDir.resolve("s" + i + ".db"), world, own);
            assertThat(together.get(scope))
                .as("what %s saw and holds, with the others and alone", Trials.show(scope))
                .isEqualTo(alone.get(scope));
          }
        });
  }

  private static World world(SplittableRandom r) {
    if (r.nextBoolean()) {
      return new World(
          OnceOnly.DEFAULT_SCOPE_PATTERN, OnceOnly.DEFAULT_KEY_PATTERN, PLAIN_SCOPES, PLAIN_KEYS);
    }
    Set<String> scopes = new LinkedHashSet<>();
    while (scopes.size() < 4) {
      scopes.addAll(SCOPE_RIVALS.get(r.nextInt(SCOPE_RIVALS.size())));
    }
    Set<String> keys = new LinkedHashSet<>(List.of("c", "b/c"));
    while (keys.size() < 5) {
      keys.add(WIDE_KEYS.get(r.nextInt(WIDE_KEYS.size())));
    }
    return new World(
        WIDE_PATTERNS.get(r.nextInt(WIDE_PATTERNS.size())),
        WIDE_PATTERNS.get(r.nextInt(WIDE_PATTERNS.size())),
        List.copyOf(scopes),
        List.copyOf(keys));
  }

  private static List<Call> calls(SplittableRandom r, World world) {
    List<Call> calls = new ArrayList<>();
    int n = 20 + r.nextInt(40);
    for (int i = 0; i < n; i++) {
      Call call =
          new Call(
              world.scopes().get(r.nextInt(world.scopes().size())),
              r.nextInt(10),
              world.keys().get(r.nextInt(world.keys().size())),
              r.nextInt(2));
      calls.add(call);
      if (r.nextInt(3) == 0) {
        rivals(call, world).forEach(calls::add);
      }
    }
    return calls;
  }

  /**
   * The same call by every other pair of the world that a naive composite key ({@code scope/key})
   * or a lossy encoding (an unpaired surrogate stored as {@code ?}) would mistake for this one's.
   */
  private static List<Call> rivals(Call call, World world) {
    String naive = naive(call.scope(), call.key());
    List<Call> out = new ArrayList<>();
    for (String scope : world.scopes()) {
      for (String key : world.keys()) {
        if (!scope.equals(call.scope()) && naive(scope, key).equals(naive)) {
          out.add(new Call(scope, call.op(), key, call.value()));
        }
      }
    }
    return out;
  }

  private static String naive(String scope, String key) {
    return (scope + "/" + key).replaceAll("\\p{Cs}", "?");
  }

  /** Runs the calls on a new database; returns, per scope, its answers and then its rows. */
  private static Map<String, List<String>> run(Path file, World world, List<Call> calls)
      throws SQLException {
    Map<String, List<String>> seen = new LinkedHashMap<>();
    world.scopes().forEach(s -> seen.put(s, new ArrayList<>()));
    Map<IntentKey, Claim> held = new HashMap<>();
    try (OnceOnly once =
        OnceOnly.builder()
            .sqlite(file)
            .synchronous(OnceOnly.Synchronous.NORMAL) // durability is not what is tested here
            .clock(MutableClock.at("2026-11-30T12:00:00Z"))
            .scopePattern(world.scopePattern())
            .keyPattern(world.keyPattern())
            .build()) {
      Db.exec(file, "CREATE TABLE tenant_effects (scope TEXT, intent_key TEXT, v INTEGER)");
      for (Call call : calls) {
        seen.get(call.scope()).add(call + " -> " + answer(once, call, held));
      }
      drain(once);
    }
    try (Connection c = Db.open(file)) {
      for (String table : List.of("onceonly_receipts", "onceonly_intents", "onceonly_claims")) {
        rows(
            c,
            seen,
            "SELECT scope, intent_key || ' ' || fingerprint || ' ' || "
                + (table.equals("onceonly_receipts")
                    ? "COALESCE(result, '-')"
                    : table.equals("onceonly_claims") ? "state || ' ' || fence" : "'-'")
                + " FROM "
                + table
                + " ORDER BY scope, intent_key");
      }
      rows(
          c,
          seen,
          "SELECT scope, intent_key || ' ' || v FROM tenant_effects ORDER BY scope, intent_key, v");
    }
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
    return seen;
  }

  /**
   * Adds each row of a (scope, text) query to the rows of its scope, matched in Java, not in SQL: a
   * driver may encode a scope parameter differently from the stored text. A row of a scope the
   * trial never used is kept under "?".
   */
  private static void rows(Connection c, Map<String, List<String>> seen, String sql)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String scope = rs.getString(1);
        seen.computeIfAbsent(seen.containsKey(scope) ? scope : "?", s -> new ArrayList<>())
            .add(Trials.show(scope) + " " + Trials.show(rs.getString(2)));
      }
    }
  }

  /** The answer to one call, or the field that refused it: refused alone as with the others. */
  private static String answer(OnceOnly once, Call call, Map<IntentKey, Claim> held)
      throws SQLException {
    try {
      return apply(once, call, held);
    } catch (InvalidRequestException e) {
      return "refused: " + e.field();
    }
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
      case 8 -> once.externalEffects().find(key).map(Object::toString).orElse("none");
      default -> {
        Registration registration = once.intents().register(key, "change", args);
        yield registration
            + " "
            + IntentMessage.publisher(once.queue(), QUEUE)
                .publish(once.intents().find(key).orElseThrow())
                .name();
      }
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
    // Escaped, so that the result is storable and names its intent unambiguously.
    return Trials.show(key.scope()) + " " + Trials.show(key.key()) + "=" + v;
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
