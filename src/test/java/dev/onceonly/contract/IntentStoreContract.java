package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.Canonicalizer;
import dev.onceonly.ConflictException;
import dev.onceonly.Effect;
import dev.onceonly.Fingerprint;
import dev.onceonly.Intent;
import dev.onceonly.IntentKey;
import dev.onceonly.Outcome;
import dev.onceonly.Registration;
import dev.onceonly.cli.demo.Reports;
import dev.onceonly.cli.demo.Reports.Report;
import dev.onceonly.testing.Race;
import dev.onceonly.testing.ReportTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of {@link dev.onceonly.IntentStore}: registration, its joined form, how registered
 * intents bind later steps, and the bounded, ordered listing of intents without receipts.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#receiptCoreWithTransactionPooling")
public class IntentStoreContract extends ContractSupport {
  static final String INTENTS = "onceonly_intents";
  static final String RECEIPTS = "onceonly_receipts";
  static final IntentKey LOTE_A = IntentKey.of("taller-1", "lote-A");
  static final Map<String, List<Integer>> SAMPLES = Map.of("samples", List.of(10, 20, 30));
  static final Map<String, List<Integer>> OTHER_SAMPLES = Map.of("samples", List.of(999));

  /** Sorts intent keys the way the contract promises: by scope, then key, as binary strings. */
  static final Comparator<IntentKey> ORDER =
      Comparator.comparing(IntentKey::scope).thenComparing(IntentKey::key);

  private static final ObjectMapper MAPPER = new ObjectMapper();

  @BeforeEach
  void businessTables() throws SQLException {
    try (Connection c = connect()) {
      ReportTable.createTable(c);
    }
  }

  static Fingerprint fingerprint(Object arguments) {
    return Canonicalizer.defaults()
        .fingerprint(Reports.OPERATION, MAPPER.<JsonNode>valueToTree(arguments));
  }

  long intents() {
    return count("SELECT COUNT(*) FROM " + INTENTS);
  }

  long receipts() {
    return count("SELECT COUNT(*) FROM " + RECEIPTS);
  }

  long reports() {
    return count("SELECT COUNT(*) FROM reports");
  }

  Outcome<Report> makeReport(IntentKey key, Map<String, List<Integer>> arguments)
      throws SQLException {
    return once.receipts()
        .execute(
            key,
            Reports.OPERATION,
            arguments,
            Report.class,
            ReportTable.create(key.key(), arguments.get("samples")));
  }

  static Effect<Report, SQLException> mustNotRun() {
    return c -> {
      throw new AssertionError("the effect must not run");
    };
  }

  // --- register ----------------------------------------------------------------------------

  @Test
  void registeredThenAlreadyRegisteredThenConflictWritingNothing() {
    start();
    Fingerprint fp = fingerprint(SAMPLES);
    long registeredAt = clock.millis();

    assertThat(once.intents().register(LOTE_A, Reports.OPERATION, SAMPLES))
        .isEqualTo(new Registration.Registered(LOTE_A, fp));
    reopen();
    clock.advance(Duration.ofMinutes(5));
    assertThat(once.intents().register(LOTE_A, Reports.OPERATION, SAMPLES))
        .isEqualTo(new Registration.AlreadyRegistered(LOTE_A, fp));
    Registration conflict = once.intents().register(LOTE_A, Reports.OPERATION, OTHER_SAMPLES);
    assertThat(conflict)
        .isEqualTo(new Registration.Conflict(LOTE_A, fingerprint(OTHER_SAMPLES), fp));
    assertThatThrownBy(conflict::orThrow).isInstanceOf(ConflictException.class);

    reopen();
    assertThat(intents()).isOne();
    assertThat(strings("SELECT arguments FROM " + INTENTS))
        .containsExactly("{\"samples\":[10,20,30]}");
    assertThat(strings("SELECT fingerprint FROM " + INTENTS)).containsExactly(fp.toString());
    assertThat(count("SELECT " + millis("created_at") + " FROM " + INTENTS))
        .isEqualTo(registeredAt);
    Intent intent = once.intents().find(LOTE_A).orElseThrow();
    assertThat(intent.operation()).isEqualTo(Reports.OPERATION);
    assertThat(intent.fingerprint()).isEqualTo(fp);
    assertThat(intent.arguments()).isEqualTo(MAPPER.valueToTree(SAMPLES));
    assertThat(intent.registeredAt().toEpochMilli()).isEqualTo(registeredAt);
    assertThat(once.intents().find(IntentKey.of("taller-1", "lote-B"))).isEmpty();
  }

  @Test
  void aJoinedRegistrationCommitsOrRollsBackWithTheCaller() throws Exception {
    start();
    IntentKey committed = IntentKey.of("taller-1", "lote-A");
    IntentKey rolledBack = IntentKey.of("taller-1", "lote-B");
    try (Connection c = connect()) {
      begin(c);
      insertReport(c, "caller-1");
      assertThat(once.intents().register(c, committed, Reports.OPERATION, SAMPLES))
          .isInstanceOf(Registration.Registered.class);
      // A conflict in the joined form writes nothing and leaves the caller's transaction usable.
      assertThat(once.intents().register(c, committed, Reports.OPERATION, OTHER_SAMPLES))
          .isInstanceOf(Registration.Conflict.class);
      commit(c);
    }
    try (Connection c = connect()) {
      begin(c);
      insertReport(c, "caller-2");
      assertThat(once.intents().register(c, rolledBack, Reports.OPERATION, SAMPLES))
          .isInstanceOf(Registration.Registered.class);
      rollback(c);
    }
    reopen();
    assertThat(strings("SELECT intent_key FROM " + INTENTS)).containsExactly("lote-A");
    assertThat(strings("SELECT job_id FROM reports")).containsExactly("caller-1");
    assertThat(once.intents().find(committed).orElseThrow().fingerprint())
        .isEqualTo(fingerprint(SAMPLES));
    assertThat(once.intents().find(rolledBack)).isEmpty();
  }

  private static void insertReport(Connection c, String jobId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO reports (job_id, mean) VALUES (?, 0)")) {
      ps.setString(1, jobId);
      ps.executeUpdate();
    }
  }

  @Test
  void racingRegistrationsOfOneKeyRecordExactlyOneIntent() throws Exception {
    start();
    List<Registration> answers =
        Race.run(
            32,
            i ->
                () ->
                    once.intents()
                        .register(LOTE_A, Reports.OPERATION, i % 2 == 0 ? SAMPLES : OTHER_SAMPLES));

    assertThat(answers).filteredOn(a -> a instanceof Registration.Registered).hasSize(1);
    Fingerprint winner =
        answers.stream()
            .filter(a -> a instanceof Registration.Registered)
            .findFirst()
            .orElseThrow()
            .fingerprint();
    assertThat(answers)
        .allSatisfy(
            a -> {
              if (a instanceof Registration.Conflict c) {
                assertThat(c.stored()).isEqualTo(winner);
                assertThat(c.fingerprint()).isNotEqualTo(winner);
              } else {
                assertThat(a.fingerprint()).isEqualTo(winner);
              }
            });
    assertThat(answers).filteredOn(a -> a instanceof Registration.Conflict).hasSize(16);
    reopen();
    assertThat(intents()).isOne();
    assertThat(strings("SELECT fingerprint FROM " + INTENTS)).containsExactly(winner.toString());
  }

  // --- registered intents bind later steps -------------------------------------------------

  @Test
  void aStepWithOtherArgumentsThanTheRegisteredIntentConflictsWithoutRunning() throws Exception {
    start();
    once.intents().register(LOTE_A, Reports.OPERATION, SAMPLES);

    assertThat(
            once.receipts()
                .execute(LOTE_A, Reports.OPERATION, OTHER_SAMPLES, Report.class, mustNotRun()))
        .isEqualTo(
            new Outcome.Conflict<Report>(LOTE_A, fingerprint(SAMPLES), fingerprint(OTHER_SAMPLES)));
    reopen();
    assertThat(receipts()).isZero();
    assertThat(reports()).isZero();
    assertThat(once.intents().pending(10)).extracting(Intent::key).containsExactly(LOTE_A);
  }

  /** The report workshop's receiver, checked before Redis is added, plus its altered message. */
  @Test
  void seed000RegisterThenReportOnceThenRefuseOtherSamples() throws Exception {
    start(b -> b.validator(Reports.OPERATION, Reports.VALIDATOR));
    assertThat(once.intents().register(LOTE_A, Reports.OPERATION, SAMPLES))
        .isInstanceOf(Registration.Registered.class);
    Report expected = new Report(3, 10, 30, 20.0);

    Outcome<Report> first = makeReport(LOTE_A, SAMPLES);
    assertThat(first).isInstanceOf(Outcome.Created.class);
    assertThat(first.resultOrThrow()).isEqualTo(expected);
    reopen();
    Outcome<Report> second = makeReport(LOTE_A, SAMPLES);
    assertThat(second).isInstanceOf(Outcome.Repeated.class);
    assertThat(second.resultOrThrow()).isEqualTo(expected);

    // Reusing lote-A for other samples is an explicit error, at registration and at delivery.
    assertThat(once.intents().register(LOTE_A, Reports.OPERATION, OTHER_SAMPLES))
        .isInstanceOf(Registration.Conflict.class);
    assertThat(makeReport(LOTE_A, Map.of("samples", List.of(10, 20, 31))))
        .isInstanceOf(Outcome.Conflict.class);

    reopen();
    assertThat(intents()).isOne();
    assertThat(receipts()).isOne();
    assertThat(reports()).isOne();
    assertThat(count("SELECT COUNT(*) FROM reports WHERE mean = 20.0")).isOne();
    assertThat(once.intents().pending(100)).isEmpty();
  }

  // --- pending -----------------------------------------------------------------------------

  @Test
  void pendingListsOnlyIntentsWithoutReceiptsInScopeThenKeyOrderBounded() throws Exception {
    start();
    List<IntentKey> keys =
        List.of(
            IntentKey.of("b", "k-1"),
            IntentKey.of("a", "k-2"),
            IntentKey.of("a", "K-9"),
            IntentKey.of("b", "k-0"),
            IntentKey.of("a", "k-10"),
            IntentKey.of("a", "k.1"),
            IntentKey.of("ab", "k-0"));
    for (IntentKey key : keys) {
      once.intents()
          .register(key, Reports.OPERATION, Map.of("samples", List.of(key.hashCode() & 0xff)));
    }
    // Two of them have run.
    IntentKey done1 = IntentKey.of("a", "k-2");
    IntentKey done2 = IntentKey.of("b", "k-0");
    for (IntentKey done : List.of(done1, done2)) {
      once.receipts()
          .execute(
              done,
              Reports.OPERATION,
              once.intents().find(done).orElseThrow().arguments(),
              Report.class,
              ReportTable.create(done.toString(), List.of(1)));
    }
    // A step with a receipt but no intent is not pending either.
    makeReport(IntentKey.of("a", "k-0"), SAMPLES);

    reopen();
    List<IntentKey> expected = new ArrayList<>(keys);
    expected.removeAll(List.of(done1, done2));
    expected.sort(ORDER);
    assertThat(expected)
        .containsExactly(
            IntentKey.of("a", "K-9"),
            IntentKey.of("a", "k-10"),
            IntentKey.of("a", "k.1"),
            IntentKey.of("ab", "k-0"),
            IntentKey.of("b", "k-1"));
    assertThat(once.intents().pending(100)).extracting(Intent::key).isEqualTo(expected);
    assertThat(once.intents().pending(2)).extracting(Intent::key).isEqualTo(expected.subList(0, 2));
    assertThat(once.intents().pending(1).get(0))
        .satisfies(
            i -> {
              assertThat(i.operation()).isEqualTo(Reports.OPERATION);
              assertThat(i.fingerprint())
                  .isEqualTo(once.intents().find(i.key()).orElseThrow().fingerprint());
            });
  }

  @Test
  void pendingAfterPagesThroughTheBacklogWithoutGapsOrRepeats() throws Exception {
    start();
    List<IntentKey> keys = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      keys.add(IntentKey.of("tenant-" + (char) ('a' + i % 3), "job-" + i));
    }
    List<IntentKey> shuffled = new ArrayList<>(keys);
    Collections.shuffle(shuffled, new Random(42));
    try (Connection c = connect()) {
      begin(c);
      for (IntentKey key : shuffled) {
        once.intents().register(c, key, "job", Map.of("n", key.key()));
      }
      commit(c);
    }
    // Receipts for ten more intents: they must never appear in a page.
    for (int i = 0; i < 10; i++) {
      IntentKey done = IntentKey.of("tenant-b", "done-" + i);
      once.intents().register(done, "job", Map.of("n", done.key()));
      once.receipts().execute(done, "job", Map.of("n", done.key()), String.class, c -> "ok");
    }
    reopen();

    List<IntentKey> seen = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    List<Intent> page = once.intents().pending(100);
    while (!page.isEmpty()) {
      sizes.add(page.size());
      page.forEach(i -> seen.add(i.key()));
      page = once.intents().pendingAfter(page.get(page.size() - 1).key(), 100);
    }

    assertThat(sizes).containsExactly(100, 100, 50);
    Set<IntentKey> distinct = new HashSet<>(seen);
    assertThat(distinct).hasSize(250).containsExactlyInAnyOrderElementsOf(keys);
    assertThat(seen).isSortedAccordingTo(ORDER);
    assertThat(seen.stream().map(IntentKey::key).collect(Collectors.toSet()))
        .noneMatch(k -> k.startsWith("done-"));
    assertThat(intents()).isEqualTo(260);
  }

  @Test
  void pendingAfterAKeyThatIsNotRegisteredStartsAfterWhereItWouldSort() {
    start();
    for (String key : List.of("a", "c", "e")) {
      once.intents().register(IntentKey.of("s", key), "job", Map.of());
    }
    once.intents().register(IntentKey.of("t", "a"), "job", Map.of());
    assertThat(once.intents().pendingAfter(IntentKey.of("s", "b"), 10))
        .extracting(Intent::key)
        .containsExactly(IntentKey.of("s", "c"), IntentKey.of("s", "e"), IntentKey.of("t", "a"));
    assertThat(once.intents().pendingAfter(IntentKey.of("s", "z"), 10))
        .extracting(Intent::key)
        .containsExactly(IntentKey.of("t", "a"));
    assertThat(once.intents().pendingAfter(IntentKey.of("t", "a"), 10)).isEmpty();
  }

  @Test
  void listingsRefuseLimitsOutOfRange() {
    start();
    IntentKey after = IntentKey.of("s", "k");
    assertThatThrownBy(() -> once.intents().pending(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit");
    assertThatThrownBy(() -> once.intents().pending(10_001))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> once.intents().pendingAfter(after, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> once.intents().pendingAfter(null, 10))
        .isInstanceOf(NullPointerException.class);
    assertThat(once.intents().pending(10_000)).isEmpty();
  }

  @Test
  void argumentsAreStoredInCanonicalForm() {
    start();
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("z", 1.0);
    args.put("a", "\u00e9\u20ac");
    once.intents().register(LOTE_A, "job", args);
    reopen();
    assertThat(strings("SELECT arguments FROM " + INTENTS))
        .containsExactly("{\"a\":\"\u00e9\u20ac\",\"z\":1}");
  }
}
