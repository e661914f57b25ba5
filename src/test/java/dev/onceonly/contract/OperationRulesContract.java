package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.onceonly.Effect;
import dev.onceonly.IntentKey;
import dev.onceonly.IntentNotRegisteredException;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OperationRules;
import dev.onceonly.Outcome;
import dev.onceonly.Registration;
import dev.onceonly.cli.demo.Tickets;
import dev.onceonly.cli.demo.Tickets.Ticket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rules set per operation in the builder: a key pattern of its own, a validator that sees the key
 * as well as the arguments, and an {@code execute} that runs only for a registered intent. Every
 * refusal leaves every table as it was, row for row, after reopening.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class OperationRulesContract extends ContractSupport {
  static final String REFUND = "refund";
  static final String TICKET = Tickets.OPERATION;
  static final IntentKey RF_1 = IntentKey.of("u-1", "rf-0001");
  static final Map<String, Object> AMOUNT_10 = Map.of("order", "0001", "amount", 10);
  static final Map<String, Object> AMOUNT_99 = Map.of("order", "0001", "amount", 99);

  /** A refund's key names its order: the arguments must be about that order. */
  static final OperationRules REFUND_RULES =
      OperationRules.builder()
          .keyPattern("rf-[0-9]{4}")
          .validator(
              (key, arguments) -> {
                String order = arguments.path("order").asText();
                if (!key.key().equals("rf-" + order)) {
                  throw new InvalidRequestException(
                      "arguments", "order " + order + " is not the order of key " + key.key());
                }
              })
          .requireRegisteredIntent()
          .build();

  @BeforeEach
  void businessTables() {
    createTickets();
  }

  /** The refund's effect: a ticket row, so that a run can be seen in the database. */
  static Effect<Ticket, SQLException> refund(IntentKey key) {
    return Tickets.create(key.scope(), "refund " + key.key());
  }

  Outcome<Ticket> executeRefund(IntentKey key, Map<String, Object> arguments) throws SQLException {
    return once.receipts().execute(key, REFUND, arguments, Ticket.class, refund(key));
  }

  long tickets() {
    return count("SELECT COUNT(*) FROM tickets");
  }

  // ---- execute that requires a registered intent ----------------------------------------------

  @Test
  void anUnregisteredKeyIsRefusedWithNothingRunAndNothingWritten() {
    start(b -> b.operation(REFUND, REFUND_RULES));
    Map<String, List<String>> before = snapshot();

    Throwable refused = catchThrowable(() -> executeRefund(RF_1, AMOUNT_10));
    assertThat(refused).isInstanceOf(IntentNotRegisteredException.class);
    IntentNotRegisteredException e = (IntentNotRegisteredException) refused;
    assertThat(e.key()).isEqualTo(RF_1);
    assertThat(e.operation()).isEqualTo(REFUND);
    assertThat(e).hasMessageContaining("refund").hasMessageContaining("rf-0001");

    reopen();
    assertThat(snapshot()).isEqualTo(before);
    assertThat(tickets()).isZero();
  }

  @Test
  void aRegisteredKeyRunsOnceAndATamperedOneConflictsWithoutRunning() throws Exception {
    start(b -> b.operation(REFUND, REFUND_RULES));
    IntentKey rf2 = IntentKey.of("u-1", "rf-0002");
    Map<String, Object> order2 = Map.of("order", "0002", "amount", 10);
    assertThat(once.intents().register(RF_1, REFUND, AMOUNT_10))
        .isInstanceOf(Registration.Registered.class);
    assertThat(once.intents().register(rf2, REFUND, order2))
        .isInstanceOf(Registration.Registered.class);

    assertThat(executeRefund(RF_1, AMOUNT_10)).isInstanceOf(Outcome.Created.class);
    assertThat(executeRefund(RF_1, AMOUNT_10)).isInstanceOf(Outcome.Repeated.class);
    reopen();
    Map<String, List<String>> before = snapshot();

    // rf-0002 was registered for 10; a request that says 99 was changed on its way.
    Outcome<Ticket> tampered = executeRefund(rf2, Map.of("order", "0002", "amount", 99));
    assertThat(tampered).isInstanceOf(Outcome.Conflict.class);

    reopen();
    assertThat(snapshot()).isEqualTo(before);
    assertThat(tickets()).isEqualTo(1);
    assertThat(strings("SELECT scope || '/' || intent_key FROM onceonly_receipts"))
        .containsExactly("u-1/rf-0001");
  }

  @Test
  void aJoinedStepOfAnUnregisteredKeyIsRefusedAndTheCallersWritesStayItsOwn() throws Exception {
    start(b -> b.operation(REFUND, REFUND_RULES));
    try (Connection c = connect()) {
      begin(c);
      insertTicketRow(c, 500, "the caller's own row");
      assertThatThrownBy(
              () -> once.receipts().execute(c, RF_1, REFUND, AMOUNT_10, Ticket.class, refund(RF_1)))
          .isInstanceOf(IntentNotRegisteredException.class);
      commit(c);
    }
    assertThatThrownBy(
            () ->
                once.useTransaction(
                    tx -> {
                      insertTicketRow(tx, 501, "rolled back with the step");
                      once.receipts()
                          .execute(tx, RF_1, REFUND, AMOUNT_10, Ticket.class, refund(RF_1));
                    }))
        .isInstanceOf(IntentNotRegisteredException.class);

    reopen();
    assertThat(strings("SELECT subject FROM tickets")).containsExactly("the caller's own row");
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts")).isZero();
  }

  @Test
  void registrationInsideTheSameTransactionSatisfiesTheRule() throws Exception {
    start(b -> b.operation(REFUND, REFUND_RULES));
    Outcome<Ticket> outcome =
        once.inTransaction(
            tx -> {
              once.intents().register(tx, RF_1, REFUND, AMOUNT_10).orThrow();
              return once.receipts()
                  .execute(tx, RF_1, REFUND, AMOUNT_10, Ticket.class, refund(RF_1));
            });
    assertThat(outcome).isInstanceOf(Outcome.Created.class);

    reopen();
    assertThat(tickets()).isEqualTo(1);
    assertThat(once.intents().find(RF_1)).isPresent();
    assertThat(once.receipts().find(RF_1)).isPresent();
  }

  @Test
  void anOperationWithoutTheRuleStillRunsUnregistered() throws Exception {
    start(b -> b.operation(REFUND, REFUND_RULES));
    IntentKey key = IntentKey.of("u-1", "op-17");
    assertThat(
            once.receipts()
                .execute(
                    key, TICKET, Map.of("subject", "x"), Ticket.class, Tickets.create("u-1", "x")))
        .isInstanceOf(Outcome.Created.class);
    reopen();
    assertThat(tickets()).isEqualTo(1);
  }

  // ---- per-operation key patterns and validators ----------------------------------------------

  @Test
  void twoOperationsEnforceTheirOwnKeyPatternsAndOthersKeepTheDefault() throws Exception {
    start(
        b ->
            b.operation(REFUND, REFUND_RULES)
                .operation(TICKET, OperationRules.builder().keyPattern("tk-[a-z]{3}").build()));
    Map<String, List<String>> before = snapshot();

    assertKeyRefused(
        () -> once.intents().register(IntentKey.of("u-1", "op-17"), REFUND, AMOUNT_10));
    assertKeyRefused(() -> once.intents().register(RF_1, TICKET, Map.of("subject", "x")));
    assertKeyRefused(
        () ->
            once.receipts()
                .execute(
                    RF_1,
                    TICKET,
                    Map.of("subject", "x"),
                    Ticket.class,
                    Tickets.create("u-1", "x")));
    reopen();
    assertThat(snapshot()).isEqualTo(before);

    assertThat(once.intents().register(RF_1, REFUND, AMOUNT_10))
        .isInstanceOf(Registration.Registered.class);
    IntentKey tk = IntentKey.of("u-1", "tk-abc");
    assertThat(
            once.receipts()
                .execute(
                    tk, TICKET, Map.of("subject", "x"), Ticket.class, Tickets.create("u-1", "x")))
        .isInstanceOf(Outcome.Created.class);
    // An operation without rules of its own keeps the instance's default pattern.
    assertThat(once.intents().register(IntentKey.of("u-1", "op-17"), "other_op", Map.of()))
        .isInstanceOf(Registration.Registered.class);

    reopen();
    assertThat(strings("SELECT intent_key FROM onceonly_intents ORDER BY intent_key"))
        .containsExactly("op-17", "rf-0001");
    assertThat(strings("SELECT intent_key FROM onceonly_receipts")).containsExactly("tk-abc");
  }

  @Test
  void aValidatorThatSeesTheKeyRefusesArgumentsAboutAnotherOrder() throws Exception {
    start(b -> b.operation(REFUND, REFUND_RULES));
    Map<String, List<String>> before = snapshot();

    Map<String, Object> otherOrder = Map.of("order", "0002", "amount", 10);
    assertThat(catchThrowable(() -> once.intents().register(RF_1, REFUND, otherOrder)))
        .isInstanceOfSatisfying(
            InvalidRequestException.class,
            e -> {
              assertThat(e.field()).isEqualTo("arguments");
              assertThat(e).hasMessageContaining("not the order of key rf-0001");
            });
    assertThat(catchThrowable(() -> executeRefund(RF_1, otherOrder)))
        .isInstanceOf(InvalidRequestException.class);

    reopen();
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void aKeyOnlyAnOperationsPatternAdmitsCanBeLookedUp() throws Exception {
    OperationRules slashed = OperationRules.builder().keyPattern("rf/[0-9]{4}").build();
    start(b -> b.operation(REFUND, slashed));
    IntentKey key = IntentKey.of("u-1", "rf/0001");
    assertThat(executeRefund(key, AMOUNT_10)).isInstanceOf(Outcome.Created.class);

    reopen();
    assertThat(once.receipts().find(key)).isPresent();
    assertThat(once.intents().find(key)).isEmpty();
    assertThatThrownBy(() -> once.receipts().find(IntentKey.of("u-1", "rf/x")))
        .isInstanceOf(InvalidRequestException.class);
  }

  private static void assertKeyRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    assertThat(catchThrowable(call))
        .isInstanceOfSatisfying(
            InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("key"));
  }

  private static void insertTicketRow(Connection c, long id, String subject) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO tickets (id, owner, subject) VALUES (?, ?, ?)")) {
      ps.setLong(1, id);
      ps.setString(2, "caller");
      ps.setString(3, subject);
      ps.executeUpdate();
    }
  }
}
