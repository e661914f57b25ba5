package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;

import dev.onceonly.Effect;
import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.Receipt;
import dev.onceonly.ReceiptStore.PurgeResult;
import dev.onceonly.Registration;
import dev.onceonly.cli.demo.Tickets;
import dev.onceonly.cli.demo.Tickets.Ticket;
import dev.onceonly.testing.Race;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of {@link dev.onceonly.ReceiptStore}: created, repeated, conflicting and expired
 * steps, effect failures, scopes, races, joined transactions, nesting and retention. Every
 * assertion on effects reads rows back through a fresh connection, most after a restart.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDatabase")
public class ReceiptStoreContract extends TicketDeskSupport {
  // --- created, repeated, conflict ---------------------------------------------------------

  @Test
  void createdThenRepeatedWithTheSameResultThenConflict() throws Exception {
    start();
    Instant t0 = clock.instant();
    Fingerprint fp = fingerprint(OPERATION, SUBJECT);

    Outcome<Ticket> first = createTicket(OP_17, SUBJECT);
    Ticket ticket = new Ticket(1, SUBJECT.get("subject"));
    assertThat(first).isEqualTo(new Outcome.Created<>(OP_17, fp, ticket, t0));

    reopen();
    clock.advance(Duration.ofHours(1));
    assertThat(createTicket(OP_17, SUBJECT))
        .isEqualTo(new Outcome.Repeated<>(OP_17, fp, ticket, t0));
    assertThat(createTicket(OP_17, OTHER))
        .isEqualTo(new Outcome.Conflict<Ticket>(OP_17, fp, fingerprint(OPERATION, OTHER)));

    reopen();
    assertThat(tickets()).isOne();
    assertThat(receipts()).isOne();
    assertThat(strings("SELECT fingerprint FROM " + RECEIPTS)).containsExactly(fp.toString());
    assertThat(once.receipts().find(OP_17))
        .hasValueSatisfying(
            r -> {
              assertThat(r.fingerprint()).isEqualTo(fp);
              assertThat(r.operation()).isEqualTo(OPERATION);
              assertThat(r.createdAt()).isEqualTo(t0);
            });
  }

  @Test
  void theSameContentSpelledDifferentlyIsARepetition() throws Exception {
    start();
    Map<String, Object> ab = new LinkedHashMap<>();
    ab.put("a", 1);
    ab.put("b", List.of("x", 2.50));
    Map<String, Object> ba = new LinkedHashMap<>();
    ba.put("b", List.of("x", 2.5));
    ba.put("a", 1.0);
    AtomicInteger runs = new AtomicInteger();
    Effect<Ticket, SQLException> effect =
        c -> {
          runs.incrementAndGet();
          return Tickets.create("u-1", "x").apply(c);
        };

    assertThat(once.receipts().execute(OP_17, "op", ab, Ticket.class, effect))
        .isInstanceOf(Outcome.Created.class);
    assertThat(once.receipts().execute(OP_17, "op", ba, Ticket.class, effect))
        .isInstanceOf(Outcome.Repeated.class);
    assertThat(
            once.receipts()
                .execute(
                    OP_17,
                    "op",
                    MAPPER.readTree("{ \"b\":[\"x\",25e-1],\"a\":1}"),
                    Ticket.class,
                    effect))
        .isInstanceOf(Outcome.Repeated.class);
    // The operation's name is part of the fingerprint.
    assertThat(once.receipts().execute(OP_17, "other_op", ab, Ticket.class, effect))
        .isInstanceOf(Outcome.Conflict.class);

    reopen();
    assertThat(runs).hasValue(1);
    assertThat(tickets()).isOne();
    assertThat(receipts()).isOne();
  }

  /** The ticket desk, its effects checked after reopening, step by step. */
  @Test
  void seed003LostResponseThenFailureBeforeCommit() throws Exception {
    start(b -> b.validator(OPERATION, Tickets.VALIDATOR));

    // Attempt 1: ticket and receipt commit, then the response is lost.
    assertThatThrownBy(() -> createTicketLosingResponse(OP_17, SUBJECT))
        .isInstanceOf(TimeoutException.class);

    // The client restarts and retries with the same key.
    reopen();
    Outcome<Ticket> repeated = createTicket(OP_17, SUBJECT);
    assertThat(repeated).isInstanceOf(Outcome.Repeated.class);
    assertThat(repeated.resultOrThrow()).isEqualTo(new Ticket(1, SUBJECT.get("subject")));
    assertThat(tickets()).isOne();
    assertThat(createTicket(OP_17, SUBJECT)).isEqualTo(repeated);

    // Another intent under the same key is refused.
    assertThat(createTicket(OP_17, OTHER)).isInstanceOf(Outcome.Conflict.class);
    assertThat(tickets()).isOne();
    assertThat(receipts()).isOne();

    // Failure before commit, on another key: ticket and receipt are both rolled back.
    RuntimeException beforeCommit = new RuntimeException("Fallo antes de confirmar");
    Effect<Ticket, SQLException> failing =
        c -> {
          Tickets.create("u-1", SUBJECT.get("subject")).apply(c);
          throw beforeCommit;
        };
    assertThatThrownBy(
            () -> once.receipts().execute(OP_18, OPERATION, SUBJECT, Ticket.class, failing))
        .isSameAs(beforeCommit);
    reopen();
    assertThat(tickets()).isOne();
    assertThat(receipts()).isOne();

    // Its retry runs once.
    assertThat(createTicket(OP_18, SUBJECT)).isInstanceOf(Outcome.Created.class);
    assertThat(createTicket(OP_18, SUBJECT)).isInstanceOf(Outcome.Repeated.class);
    reopen();
    assertThat(tickets()).isEqualTo(2);
    assertThat(receipts()).isEqualTo(2);
    assertThat(count("SELECT COUNT(*) FROM tickets WHERE owner = 'u-1'")).isEqualTo(2);
  }

  /** The ticket desk's own checks of a ticket request, refused before anything is written. */
  @Test
  void seed003RefusesMalformedTicketRequests() throws Exception {
    start(b -> b.validator(OPERATION, Tickets.VALIDATOR));
    Map<String, Object> extra = new LinkedHashMap<>(SUBJECT);
    extra.put("priority", 1);
    List<Object> refused =
        List.of(
            Map.of(),
            extra,
            Map.of("subject", " \t"),
            Map.of("subject", "x".repeat(121)),
            Map.of("subject", 42),
            List.of("subject"));
    for (Object arguments : refused) {
      assertThatThrownBy(
              () ->
                  once.receipts().execute(OP_17, OPERATION, arguments, Ticket.class, mustNotRun()))
          .as("%s", arguments)
          .isInstanceOfSatisfying(
              InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("arguments"));
    }
    assertThat(
            once.receipts()
                .execute(
                    OP_17,
                    OPERATION,
                    Map.of("subject", "x".repeat(120)),
                    Ticket.class,
                    Tickets.create("u-1", "x")))
        .isInstanceOf(Outcome.Created.class);
    reopen();
    assertThat(tickets()).isOne();
    assertThat(receipts()).isOne();
  }

  @Test
  void anEffectReturningNullIsRememberedNotRunAgain() throws Exception {
    start();
    AtomicInteger runs = new AtomicInteger();
    Effect<Ticket, SQLException> effect =
        c -> {
          runs.incrementAndGet();
          insertTicket(c, "u-1", "x");
          return null;
        };
    assertThat(once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, effect))
        .isInstanceOf(Outcome.Created.class);
    reopen();
    Outcome<Ticket> again =
        once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, effect);
    assertThat(again).isInstanceOf(Outcome.Repeated.class);
    assertThat(again.toOptional()).isEmpty();
    assertThat(runs).hasValue(1);
    assertThat(tickets()).isOne();
    assertThat(count("SELECT COUNT(*) FROM " + RECEIPTS + " WHERE result IS NOT NULL")).isOne();
  }

  @Test
  void aResultThatCannotBeStoredRollsTheEffectBack() throws Exception {
    start();
    Effect<Object, SQLException> effect =
        c -> {
          insertTicket(c, "u-1", "x");
          return new Object(); // Jackson refuses an empty bean
        };
    assertThatThrownBy(
            () -> once.receipts().execute(OP_17, OPERATION, SUBJECT, Object.class, effect))
        .isInstanceOf(dev.onceonly.UnstorableResultException.class)
        .hasMessageContaining("cannot write it as JSON");
    reopen();
    assertThat(tickets()).isZero();
    assertThat(receipts()).isZero();
  }

  /** Jackson writes it through its getter but cannot read it: no constructor it can call. */
  public static final class Unreadable {
    private final long id;
    private final String subject;

    /** Two unannotated parameters: Jackson has no way to bind them. */
    public Unreadable(long id, String subject) {
      this.id = id;
      this.subject = subject;
    }

    public long getId() {
      return id;
    }

    public String getSubject() {
      return subject;
    }
  }

  /** A record whose ignored component comes back null. */
  public record WithSecret(long id, @com.fasterxml.jackson.annotation.JsonIgnore String secret) {}

  /** A record with a list and an array: equal by content, not by its own equals for the array. */
  public record Lines(List<String> lines, int[] codes) {}

  /** A bean without equals that reads back faithfully. */
  public static final class Plain {
    public long id;
    public List<String> tags = new ArrayList<>();
  }

  @Test
  void aResultTypeThatCannotBeReadBackIsRefusedAndNothingIsWritten() throws Exception {
    start();
    Effect<Unreadable, SQLException> effect =
        c -> {
          insertTicket(c, "u-1", "x");
          return new Unreadable(7, "x");
        };
    assertThatThrownBy(
            () -> once.receipts().execute(OP_17, OPERATION, SUBJECT, Unreadable.class, effect))
        .isInstanceOf(dev.onceonly.UnstorableResultException.class)
        .hasMessageContaining(Unreadable.class.getName());
    assertNothingWrittenThenRetryRunsOnce();
  }

  @Test
  void aResultThatLosesAnIgnoredFieldIsRefusedAndNothingIsWritten() throws Exception {
    start();
    Effect<WithSecret, SQLException> effect =
        c -> {
          insertTicket(c, "u-1", "x");
          return new WithSecret(7, "kept only in memory");
        };
    assertThatThrownBy(
            () -> once.receipts().execute(OP_17, OPERATION, SUBJECT, WithSecret.class, effect))
        .isInstanceOf(dev.onceonly.UnstorableResultException.class)
        .hasMessageContaining("does not read back equal");
    assertNothingWrittenThenRetryRunsOnce();
  }

  @Test
  void resultsThatReadBackEqualByContentAreStored() throws Exception {
    start();
    Lines lines = new Lines(List.of("a", "b"), new int[] {1, 2});
    Outcome<Lines> created =
        once.receipts().execute(OP_17, OPERATION, SUBJECT, Lines.class, c -> lines);
    assertThat(created).isInstanceOf(Outcome.Created.class);
    Plain plain = new Plain();
    plain.id = 9;
    plain.tags.add("t");
    assertThat(once.receipts().execute(OP_18, OPERATION, SUBJECT, Plain.class, c -> plain))
        .isInstanceOf(Outcome.Created.class);
    reopen();
    Lines again =
        once.receipts()
            .execute(OP_17, OPERATION, SUBJECT, Lines.class, c -> fail("must not run"))
            .resultOrThrow();
    assertThat(again.lines()).containsExactly("a", "b");
    assertThat(again.codes()).containsExactly(1, 2);
    assertThat(receipts()).isEqualTo(2);
  }

  @Test
  void createdAndRepeatedReportTheSameTimesWithASubMillisecondClock() throws Exception {
    clock.set(Instant.parse("2030-01-15T10:00:00.123456789Z"));
    startWithRetention(DAY, WEEK);
    Outcome.Created<Ticket> created = (Outcome.Created<Ticket>) createTicket(OP_17, SUBJECT);
    clock.advance(Duration.ofNanos(1));

    Outcome<Ticket> repeated = createTicket(OP_17, SUBJECT);
    assertThat(repeated)
        .isEqualTo(
            new Outcome.Repeated<>(
                OP_17, created.fingerprint(), created.result(), created.createdAt()));
    assertThat(once.receipts().find(OP_17).orElseThrow().createdAt())
        .isEqualTo(created.createdAt());
    clock.set(created.createdAt().plus(DAY));
    assertThat(once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, mustNotRun()))
        .isEqualTo(
            new Outcome.Expired<Ticket>(
                OP_17, created.fingerprint(), created.createdAt().plus(DAY)));
  }

  @Test
  void aResultIsReturnedExactlyAsStoredOrRefused() throws Exception {
    start();
    String awkward = "emoji \uD83D\uDE00, NUL \u0000, line separator \u2028, quote \" and \\";
    Outcome<Ticket> created =
        once.receipts()
            .execute(OP_17, OPERATION, SUBJECT, Ticket.class, c -> new Ticket(7, awkward));
    reopen();
    assertThat(createTicket(OP_17, SUBJECT).resultOrThrow())
        .isEqualTo(created.resultOrThrow())
        .isEqualTo(new Ticket(7, awkward));

    // A lone surrogate has no UTF-8 form: storing it would change the result, so it is refused.
    Effect<Ticket, SQLException> lone =
        c -> {
          insertTicket(c, "u-1", "x");
          return new Ticket(8, "cut in the middle of a pair \uD83D");
        };
    assertThatThrownBy(() -> once.receipts().execute(OP_18, OPERATION, SUBJECT, Ticket.class, lone))
        .isInstanceOf(dev.onceonly.UnstorableResultException.class)
        .hasMessageContaining("surrogate");
    reopen();
    assertThat(tickets()).isZero();
    assertThat(receipts()).isOne();
    assertThat(once.receipts().find(OP_18)).isEmpty();
  }

  @Test
  void answersOtherThanCreatedWriteNothing() throws Exception {
    startWithRetention(DAY, WEEK);
    IntentKey registered = IntentKey.of("u-1", "registered");
    IntentKey stale = IntentKey.of("u-1", "stale");
    once.intents().register(registered, OPERATION, SUBJECT);
    once.intents().register(stale, OPERATION, SUBJECT);
    createTicket(OP_17, SUBJECT);
    createTicket(stale, SUBJECT);
    clock.advance(DAY);
    createTicket(OP_18, SUBJECT); // OP_17 and stale have expired, OP_18 has not
    Map<String, List<String>> before = snapshot();

    assertThat(once.receipts().execute(OP_18, OPERATION, SUBJECT, Ticket.class, mustNotRun()))
        .isInstanceOf(Outcome.Repeated.class);
    assertThat(once.receipts().execute(OP_18, OPERATION, OTHER, Ticket.class, mustNotRun()))
        .isInstanceOf(Outcome.Conflict.class);
    assertThat(once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, mustNotRun()))
        .isInstanceOf(Outcome.Expired.class);
    assertThat(once.receipts().execute(registered, OPERATION, OTHER, Ticket.class, mustNotRun()))
        .isInstanceOf(Outcome.Conflict.class);
    assertThat(once.intents().register(registered, OPERATION, OTHER))
        .isInstanceOf(Registration.Conflict.class);
    // Past every retention, but the registered intent has other content: still nothing written.
    clock.advance(WEEK);
    assertThat(once.receipts().execute(stale, OPERATION, OTHER, Ticket.class, mustNotRun()))
        .isInstanceOf(Outcome.Conflict.class);
    reopen();
    assertThat(snapshot()).isEqualTo(before);
  }

  // --- effect failures ---------------------------------------------------------------------

  /** A checked exception of the caller's own. */
  static final class ReportFailed extends Exception {
    private static final long serialVersionUID = 1L;

    ReportFailed(String message) {
      super(message);
    }
  }

  @Test
  void aCheckedExceptionOfTheEffectPassesThroughUnwrapped() {
    start();
    ReportFailed failure = new ReportFailed("printer on fire");
    Effect<Ticket, ReportFailed> effect =
        c -> {
          try {
            insertTicket(c, "u-1", "x");
          } catch (SQLException e) {
            throw new AssertionError(e);
          }
          throw failure;
        };
    // Compiles without "throws Exception": the effect's own type is what execute declares.
    try {
      once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, effect);
      fail("the effect's exception was swallowed");
    } catch (ReportFailed e) {
      assertThat(e).isSameAs(failure);
      assertThat(e.getSuppressed()).isEmpty();
    }
    assertNothingWrittenThenRetryRunsOnce();
  }

  @Test
  void anSqlExceptionOfTheEffectPassesThroughUnwrapped() throws Exception {
    start();
    SQLException failure = new SQLException("serialization failure", "40001");
    Effect<Ticket, SQLException> thrown =
        c -> {
          insertTicket(c, "u-1", "x");
          throw failure;
        };
    assertThat(
            catchThrowable(
                () -> once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, thrown)))
        .isSameAs(failure);

    Effect<Ticket, SQLException> badSql =
        c -> {
          insertTicket(c, "u-1", "x");
          try (PreparedStatement ps = c.prepareStatement("INSERT INTO no_such_table VALUES (1)")) {
            ps.executeUpdate();
          }
          return null;
        };
    assertThat(
            catchThrowable(
                () -> once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, badSql)))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("no_such_table");
    assertNothingWrittenThenRetryRunsOnce();
  }

  @Test
  void aRuntimeExceptionOfTheEffectPassesThroughUnwrapped() throws Exception {
    start();
    IllegalStateException failure = new IllegalStateException("bug in the effect");
    Effect<Ticket, SQLException> effect =
        c -> {
          insertTicket(c, "u-1", "x");
          throw failure;
        };
    assertThat(
            catchThrowable(
                () -> once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, effect)))
        .isSameAs(failure);
    assertNothingWrittenThenRetryRunsOnce();
  }

  private void assertNothingWrittenThenRetryRunsOnce() {
    reopen();
    assertThat(tickets()).isZero();
    assertThat(receipts()).isZero();
    try {
      assertThat(createTicket(OP_17, SUBJECT)).isInstanceOf(Outcome.Created.class);
      assertThat(createTicket(OP_17, SUBJECT)).isInstanceOf(Outcome.Repeated.class);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
    reopen();
    assertThat(tickets()).isOne();
    assertThat(receipts()).isOne();
  }

  // --- scopes ------------------------------------------------------------------------------

  @Test
  void theSameKeyUnderTwoScopesIsTwoIntents() throws Exception {
    start();
    IntentKey alice = IntentKey.of("u-1", "op-17");
    IntentKey bob = IntentKey.of("u-2", "op-17");

    Ticket aliceTicket = createTicket(alice, SUBJECT).resultOrThrow();
    Outcome<Ticket> bobFirst = createTicket(bob, OTHER);
    assertThat(bobFirst).isInstanceOf(Outcome.Created.class);
    Ticket bobTicket = bobFirst.resultOrThrow();
    assertThat(bobTicket.ticketId()).isNotEqualTo(aliceTicket.ticketId());
    // Same arguments under another scope are another intent too, not a repetition.
    IntentKey carol = IntentKey.of("u-3", "op-17");
    assertThat(createTicket(carol, SUBJECT)).isInstanceOf(Outcome.Created.class);

    reopen();
    Outcome<Ticket> aliceAgain = createTicket(alice, SUBJECT);
    Outcome<Ticket> bobAgain = createTicket(bob, OTHER);
    assertThat(aliceAgain).isInstanceOf(Outcome.Repeated.class);
    assertThat(aliceAgain.resultOrThrow()).isEqualTo(aliceTicket);
    assertThat(bobAgain).isInstanceOf(Outcome.Repeated.class);
    assertThat(bobAgain.resultOrThrow()).isEqualTo(bobTicket);
    // Each scope's stored fingerprint is its own: alice's content under bob's key conflicts.
    assertThat(createTicket(bob, SUBJECT)).isInstanceOf(Outcome.Conflict.class);

    reopen();
    assertThat(tickets()).isEqualTo(3);
    assertThat(receipts()).isEqualTo(3);
    assertThat(strings("SELECT owner FROM tickets ORDER BY id"))
        .containsExactly("u-1", "u-2", "u-3");
  }

  // --- races -------------------------------------------------------------------------------

  @Test
  void thirtyTwoThreadsOnOneKeyCreateOnce() throws Exception {
    start();
    List<Outcome<Ticket>> outcomes = Race.run(32, i -> () -> createTicket(OP_17, SUBJECT));

    assertThat(outcomes).filteredOn(o -> o instanceof Outcome.Created).hasSize(1);
    assertThat(outcomes).filteredOn(o -> o instanceof Outcome.Repeated).hasSize(31);
    assertThat(outcomes)
        .extracting(Outcome::resultOrThrow)
        .containsOnly(new Ticket(1, SUBJECT.get("subject")));
    reopen();
    assertThat(tickets()).isOne();
    assertThat(receipts()).isOne();
  }

  @Test
  void thirtyTwoInstancesOnOneDatabaseCreateOncePerKey() throws Exception {
    start();
    List<OnceOnly> instances = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      instances.add(track(open(clock, b -> b.busyTimeout(Duration.ofSeconds(30)))));
    }
    List<IntentKey> keys =
        List.of(
            IntentKey.of("u-1", "k-0"),
            IntentKey.of("u-1", "k-1"),
            IntentKey.of("u-2", "k-0"),
            IntentKey.of("u-2", "k-1"));

    List<List<Outcome<Ticket>>> outcomes =
        Race.run(
            32,
            i ->
                () -> {
                  List<Outcome<Ticket>> mine = new ArrayList<>();
                  for (int k = 0; k < keys.size(); k++) {
                    IntentKey key = keys.get((i + k) % keys.size());
                    mine.add(
                        instances
                            .get(i)
                            .receipts()
                            .execute(
                                key,
                                OPERATION,
                                SUBJECT,
                                Ticket.class,
                                Tickets.create(key.scope(), key.key())));
                  }
                  return mine;
                });

    List<Outcome<Ticket>> all = outcomes.stream().flatMap(List::stream).toList();
    assertThat(all).hasSize(32 * keys.size());
    assertThat(all).filteredOn(o -> o instanceof Outcome.Created).hasSize(keys.size());
    assertThat(all).filteredOn(o -> o instanceof Outcome.Repeated).hasSize(31 * keys.size());
    reopen();
    assertThat(tickets()).isEqualTo(keys.size());
    assertThat(receipts()).isEqualTo(keys.size());
    assertThat(count("SELECT COUNT(*) FROM (SELECT DISTINCT owner, subject FROM tickets) d"))
        .isEqualTo(keys.size());
  }

  // --- joined transactions -----------------------------------------------------------------

  @Test
  void aJoinedStepCommitsWithTheCaller() throws Exception {
    start();
    try (Connection c = connect()) {
      begin(c);
      insertTicket(c, "caller", "the caller's own row");
      Outcome<Ticket> outcome =
          once.receipts()
              .execute(c, OP_17, OPERATION, SUBJECT, Ticket.class, Tickets.create("u-1", "effect"));
      assertThat(outcome).isInstanceOf(Outcome.Created.class);
      assertThat(outcome.resultOrThrow()).isEqualTo(new Ticket(2, "effect"));
      commit(c);
    }
    reopen();
    assertThat(strings("SELECT subject FROM tickets ORDER BY id"))
        .containsExactly("the caller's own row", "effect");
    assertThat(receipts()).isOne();

    // A repetition in a joined transaction returns the stored result and writes nothing.
    try (Connection c = connect()) {
      begin(c);
      assertThat(once.receipts().execute(c, OP_17, OPERATION, SUBJECT, Ticket.class, mustNotRun()))
          .isEqualTo(
              new Outcome.Repeated<>(
                  OP_17,
                  fingerprint(OPERATION, SUBJECT),
                  new Ticket(2, "effect"),
                  clock.instant()));
      assertThat(once.receipts().execute(c, OP_17, OPERATION, OTHER, Ticket.class, mustNotRun()))
          .isInstanceOf(Outcome.Conflict.class);
      commit(c);
    }
    reopen();
    assertThat(tickets()).isEqualTo(2);
    assertThat(receipts()).isOne();
  }

  @Test
  void aJoinedStepRollsBackWithTheCaller() throws Exception {
    start();
    try (Connection c = connect()) {
      begin(c);
      insertTicket(c, "caller", "the caller's own row");
      assertThat(
              once.receipts()
                  .execute(c, OP_17, OPERATION, SUBJECT, Ticket.class, Tickets.create("u-1", "e")))
          .isInstanceOf(Outcome.Created.class);
      rollback(c);
    }
    reopen();
    assertThat(tickets()).isZero();
    assertThat(receipts()).isZero();
    // Nothing was remembered: the key runs now.
    assertThat(createTicket(OP_17, SUBJECT)).isInstanceOf(Outcome.Created.class);
  }

  @Test
  void aFailingJoinedEffectKeepsTheCallersEarlierWrites() throws Exception {
    start();
    ReportFailed failure = new ReportFailed("effect failed");
    Effect<Ticket, ReportFailed> effect =
        tx -> {
          try {
            insertTicket(tx, "u-1", "effect");
          } catch (SQLException e) {
            throw new AssertionError(e);
          }
          throw failure;
        };
    try (Connection c = connect()) {
      begin(c);
      insertTicket(c, "caller", "the caller's own row");
      try {
        once.receipts().execute(c, OP_17, OPERATION, SUBJECT, Ticket.class, effect);
        fail("the effect's exception was swallowed");
      } catch (ReportFailed e) {
        assertThat(e).isSameAs(failure);
      }
      insertTicket(c, "caller", "written after the failure");
      commit(c);
    }
    reopen();
    assertThat(strings("SELECT subject FROM tickets ORDER BY id"))
        .containsExactly("the caller's own row", "written after the failure");
    assertThat(receipts()).isZero();
    assertThat(createTicket(OP_17, SUBJECT)).isInstanceOf(Outcome.Created.class);
  }

  // --- nesting -----------------------------------------------------------------------------

  @Test
  void aNestedCallFromInsideAnEffectFailsAndRollsTheStepBack() throws Exception {
    start();
    List<Runnable> nested =
        List.of(
            () -> once.receipts().execute(OP_18, OPERATION, SUBJECT, Ticket.class, c -> null),
            () -> once.intents().register(OP_18, OPERATION, SUBJECT),
            () -> once.receipts().find(OP_18),
            () -> once.rejections().record("1-0", "{}", "nested"));
    for (Runnable call : nested) {
      Effect<Ticket, SQLException> effect =
          c -> {
            insertTicket(c, "u-1", "outer");
            call.run();
            return new Ticket(-1, "unreachable");
          };
      assertThatThrownBy(
              () -> once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, effect))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("inside an effect");
    }
    reopen();
    assertThat(tickets()).isZero();
    assertThat(receipts()).isZero();
    assertThat(count("SELECT COUNT(*) FROM " + INTENTS)).isZero();
    assertThat(count("SELECT COUNT(*) FROM onceonly_rejections")).isZero();
    // The store is still usable afterwards on the same thread.
    assertThat(createTicket(OP_17, SUBJECT)).isInstanceOf(Outcome.Created.class);
  }

  @Test
  void aNestedCallFromInsideAJoinedEffectFails() throws Exception {
    start();
    try (Connection c = connect()) {
      begin(c);
      insertTicket(c, "caller", "kept");
      Effect<Ticket, SQLException> effect =
          tx -> {
            insertTicket(tx, "u-1", "outer");
            return createTicket(OP_18, SUBJECT).resultOrThrow();
          };
      assertThatThrownBy(
              () -> once.receipts().execute(c, OP_17, OPERATION, SUBJECT, Ticket.class, effect))
          .isInstanceOf(IllegalStateException.class);
      commit(c);
    }
    reopen();
    assertThat(strings("SELECT subject FROM tickets")).containsExactly("kept");
    assertThat(receipts()).isZero();
  }

  // --- retention ---------------------------------------------------------------------------

  static final Duration DAY = Duration.ofDays(1);
  static final Duration WEEK = Duration.ofDays(7);

  private void startWithRetention(Duration result, Duration tombstone) {
    start(b -> b.resultRetention(result).tombstoneRetention(tombstone));
  }

  @Test
  void repeatedUntilExpiryThenExpiredOrConflictWithoutRunning() throws Exception {
    startWithRetention(DAY, WEEK);
    Instant t0 = clock.instant();
    Fingerprint fp = fingerprint(OPERATION, SUBJECT);
    createTicket(OP_17, SUBJECT);

    clock.advance(DAY.minusMillis(1));
    reopen();
    assertThat(createTicket(OP_17, SUBJECT)).isInstanceOf(Outcome.Repeated.class);

    clock.advance(Duration.ofMillis(1));
    assertThat(once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, mustNotRun()))
        .isEqualTo(new Outcome.Expired<Ticket>(OP_17, fp, t0.plus(DAY)));
    assertThat(once.receipts().execute(OP_17, OPERATION, OTHER, Ticket.class, mustNotRun()))
        .isEqualTo(new Outcome.Conflict<Ticket>(OP_17, fp, fingerprint(OPERATION, OTHER)));

    reopen();
    assertThat(tickets()).isOne();
    assertThat(receipts()).isOne();
  }

  @Test
  void purgeTurnsExpiredResultsIntoTombstonesThenForgetsThemWithTheirIntents() throws Exception {
    startWithRetention(DAY, WEEK);
    Instant t0 = clock.instant();
    Fingerprint fp = fingerprint(OPERATION, SUBJECT);
    once.intents().register(OP_17, OPERATION, SUBJECT);
    createTicket(OP_17, SUBJECT);

    assertThat(once.receipts().purge(100)).isEqualTo(new PurgeResult(0, 0));
    clock.advance(DAY);
    assertThat(once.receipts().purge(100)).isEqualTo(new PurgeResult(1, 0));

    reopen();
    assertThat(receipts()).isOne();
    assertThat(count("SELECT COUNT(*) FROM " + RECEIPTS + " WHERE result IS NULL")).isOne();
    Receipt tombstone = once.receipts().find(OP_17).orElseThrow();
    assertThat(tombstone.result()).isEmpty();
    assertThat(tombstone.fingerprint()).isEqualTo(fp);
    assertThat(tombstone.expiresAt()).isEqualTo(t0.plus(DAY));
    assertThat(tombstone.forgetAt()).isEqualTo(t0.plus(DAY).plus(WEEK));
    assertThat(once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, mustNotRun()))
        .isEqualTo(new Outcome.Expired<Ticket>(OP_17, fp, t0.plus(DAY)));
    assertThat(once.receipts().execute(OP_17, OPERATION, OTHER, Ticket.class, mustNotRun()))
        .isInstanceOf(Outcome.Conflict.class);

    clock.advance(WEEK.minusMillis(1));
    assertThat(once.receipts().purge(100)).isEqualTo(new PurgeResult(0, 0));
    assertThat(once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, mustNotRun()))
        .isInstanceOf(Outcome.Expired.class);

    clock.advance(Duration.ofMillis(1));
    assertThat(once.receipts().purge(100)).isEqualTo(new PurgeResult(0, 1));
    reopen();
    assertThat(receipts()).isZero();
    assertThat(count("SELECT COUNT(*) FROM " + INTENTS)).isZero();
    assertThat(once.intents().pending(100)).isEmpty();

    // The tombstone is gone: the key runs again.
    Outcome<Ticket> again = createTicket(OP_17, SUBJECT);
    assertThat(again).isInstanceOf(Outcome.Created.class);
    assertThat(again.resultOrThrow().ticketId()).isEqualTo(2);
    reopen();
    assertThat(tickets()).isEqualTo(2);
    assertThat(receipts()).isOne();
  }

  @Test
  void aReceiptPastEveryRetentionIsReplacedEvenWithoutPurge() throws Exception {
    startWithRetention(DAY, WEEK);
    createTicket(OP_17, SUBJECT);
    clock.advance(DAY.plus(WEEK));
    Instant rerun = clock.instant();

    Outcome<Ticket> again = createTicket(OP_17, OTHER);
    assertThat(again).isInstanceOf(Outcome.Created.class);
    reopen();
    assertThat(tickets()).isEqualTo(2);
    assertThat(receipts()).isOne();
    Receipt receipt = once.receipts().find(OP_17).orElseThrow();
    assertThat(receipt.createdAt()).isEqualTo(rerun);
    assertThat(receipt.fingerprint()).isEqualTo(fingerprint(OPERATION, OTHER));
  }

  @Test
  void withoutTombstonesTheKeyRunsAgainRightAfterExpiry() throws Exception {
    startWithRetention(DAY, Duration.ZERO);
    createTicket(OP_17, SUBJECT);

    clock.advance(DAY.minusMillis(1));
    assertThat(createTicket(OP_17, SUBJECT)).isInstanceOf(Outcome.Repeated.class);
    clock.advance(Duration.ofMillis(1));
    assertThat(createTicket(OP_17, SUBJECT)).isInstanceOf(Outcome.Created.class);
    reopen();
    assertThat(tickets()).isEqualTo(2);
    assertThat(receipts()).isOne();

    // Purge deletes instead of keeping a tombstone.
    clock.advance(DAY);
    assertThat(once.receipts().purge(100)).isEqualTo(new PurgeResult(0, 1));
    reopen();
    assertThat(receipts()).isZero();
  }

  @Test
  void purgeIsBoundedByItsLimit() throws Exception {
    startWithRetention(DAY, WEEK);
    Instant t0 = clock.instant();
    for (int i = 0; i < 25; i++) {
      createTicket(IntentKey.of("u-1", "old-" + i), SUBJECT);
    }
    clock.set(t0.plus(WEEK));
    for (int i = 0; i < 5; i++) {
      createTicket(IntentKey.of("u-1", "new-" + i), SUBJECT);
    }
    String tombstones = "SELECT COUNT(*) FROM " + RECEIPTS + " WHERE result IS NULL";

    // At t0 + 1 day + 1 week - 1 ms: the 25 old results have expired, the 5 new ones not yet.
    clock.set(t0.plus(DAY).plus(WEEK).minusMillis(1));
    assertThat(once.receipts().purge(10)).isEqualTo(new PurgeResult(10, 0));
    reopen();
    assertThat(count(tombstones)).isEqualTo(10);
    assertThat(once.receipts().purge(10)).isEqualTo(new PurgeResult(10, 0));
    assertThat(once.receipts().purge(10)).isEqualTo(new PurgeResult(5, 0));
    assertThat(once.receipts().purge(10)).isEqualTo(new PurgeResult(0, 0));
    reopen();
    assertThat(count(tombstones)).isEqualTo(25);
    assertThat(receipts()).isEqualTo(30);

    // One millisecond later the 25 old tombstones are due and the 5 new results expire.
    clock.advance(Duration.ofMillis(1));
    assertThat(once.receipts().purge(20)).isEqualTo(new PurgeResult(0, 20));
    reopen();
    assertThat(receipts()).isEqualTo(10);
    assertThat(once.receipts().purge(7)).isEqualTo(new PurgeResult(2, 5));
    assertThat(once.receipts().purge(7)).isEqualTo(new PurgeResult(3, 0));
    assertThat(once.receipts().purge(7)).isEqualTo(new PurgeResult(0, 0));
    reopen();
    assertThat(receipts()).isEqualTo(5);
    assertThat(count(tombstones)).isEqualTo(5);
    assertThat(strings("SELECT intent_key FROM " + RECEIPTS + " ORDER BY intent_key"))
        .containsExactly("new-0", "new-1", "new-2", "new-3", "new-4");
    assertThat(tickets()).isEqualTo(30);
  }

  @Test
  void purgeRefusesLimitsOutOfRange() {
    start();
    assertThatThrownBy(() -> once.receipts().purge(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit");
    assertThatThrownBy(() -> once.receipts().purge(10_001))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
