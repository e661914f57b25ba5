package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.CanonicalizationException;
import dev.onceonly.CanonicalizationException.Problem;
import dev.onceonly.Canonicalizer;
import dev.onceonly.Effect;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.Outcome;
import dev.onceonly.Registration;
import dev.onceonly.cli.demo.Reports;
import dev.onceonly.cli.demo.Tickets;
import dev.onceonly.cli.demo.Tickets.Ticket;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.ScheduleSpec;
import dev.onceonly.queue.Uniqueness;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input is refused with a typed exception before anything is written: every table of the
 * database is the same, row for row, before and after, whichever store and form was called.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class InvalidRequestContract extends ContractSupport {
  static final IntentKey GOOD_KEY = IntentKey.of("u-1", "op-17");
  static final String GOOD_OPERATION = "create_ticket";
  static final Map<String, Object> GOOD_ARGS = Map.of("subject", "Investigar fallo de API");
  static final int MAX_INPUT_BYTES = 512;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** One refused request and what it must raise. */
  record Bad(
      String name,
      IntentKey key,
      String operation,
      Object arguments,
      Class<? extends RuntimeException> type,
      Consumer<RuntimeException> detail) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Bad field(String name, IntentKey key, String operation, Object args, String field) {
    return new Bad(
        name,
        key,
        operation,
        args,
        InvalidRequestException.class,
        e -> assertThat(((InvalidRequestException) e).field()).isEqualTo(field));
  }

  static Bad badKey(String name, String scope, String key, String field) {
    return field(name, IntentKey.of(scope, key), GOOD_OPERATION, GOOD_ARGS, field);
  }

  static Bad badOperation(String name, String operation) {
    return field(name, GOOD_KEY, operation, GOOD_ARGS, "operation");
  }

  static Bad badSchema(String name, Object args) {
    return field(name, GOOD_KEY, Reports.OPERATION, args, "arguments");
  }

  static Bad notIJson(String name, Object args, Problem problem) {
    return new Bad(
        name,
        GOOD_KEY,
        GOOD_OPERATION,
        args,
        CanonicalizationException.class,
        e -> assertThat(((CanonicalizationException) e).problem()).isEqualTo(problem));
  }

  static Bad npe(String name, IntentKey key, String operation) {
    return new Bad(name, key, operation, GOOD_ARGS, NullPointerException.class, e -> {});
  }

  static ObjectNode object(String name, JsonNode value) {
    ObjectNode node = NODES.objectNode();
    node.set(name, value);
    return node;
  }

  static Map<String, Object> samples(Object... samples) {
    return Map.of("samples", Arrays.asList(samples));
  }

  static Stream<Bad> badRequests() {
    Map<String, Object> extraMember = new LinkedHashMap<>();
    extraMember.put("samples", List.of(10, 20, 30));
    extraMember.put("extra", 1);
    List<Integer> hundredAndOne = new ArrayList<>();
    for (int i = 0; i < 101; i++) {
      hundredAndOne.add(i);
    }
    return Stream.of(
        badKey("empty key", "u-1", "", "key"),
        badKey("key of 129 characters", "u-1", "k".repeat(129), "key"),
        badKey("key with a space", "u-1", "op 17", "key"),
        badKey("key with a slash", "u-1", "op/17", "key"),
        badKey("key with a newline", "u-1", "op-17\n", "key"),
        badKey("key with a NUL", "u-1", "op\u000017", "key"),
        badKey("key with non-ASCII letters", "u-1", "clave-ñ", "key"),
        badKey("key starting with a dash", "u-1", "-op", "key"),
        badKey("key with a quote", "u-1", "op'; DROP TABLE onceonly_receipts; --", "key"),
        npe("null key", null, GOOD_OPERATION),
        badKey("empty scope", "", "op-17", "scope"),
        badKey("scope of 129 characters", "u".repeat(129), "op-17", "scope"),
        badKey("scope with a space", "u 1", "op-17", "scope"),
        badKey("scope with a slash", "u/1", "op-17", "scope"),
        badKey("scope with a lone surrogate", "u-\uD800", "op-17", "scope"),
        badOperation("empty operation", ""),
        badOperation("operation starting with a digit", "1create"),
        badOperation("operation with a space", "create ticket"),
        badOperation("operation with SQL", "x; DROP TABLE"),
        badOperation("operation of 101 characters", "o".repeat(101)),
        npe("null operation", GOOD_KEY, null),
        notIJson(
            "payload over the canonicalizer's limit",
            Map.of("subject", "x".repeat(MAX_INPUT_BYTES)),
            Problem.TOO_LARGE),
        notIJson(
            "NaN in a Jackson tree",
            object("v", NODES.numberNode(Double.NaN)),
            Problem.NUMBER_OUT_OF_RANGE),
        notIJson(
            "Infinity in a Jackson tree",
            object("v", NODES.numberNode(Double.NEGATIVE_INFINITY)),
            Problem.NUMBER_OUT_OF_RANGE),
        notIJson("NaN in a map", Map.of("v", Double.NaN), Problem.NUMBER_OUT_OF_RANGE),
        notIJson(
            "lone high surrogate in a string",
            object("subject", NODES.textNode("caf\uD800")),
            Problem.LONE_SURROGATE),
        notIJson(
            "lone low surrogate in a member name",
            object("s\uDC00", NODES.textNode("x")),
            Problem.LONE_SURROGATE),
        notIJson(
            "binary node",
            object("b", NODES.binaryNode(new byte[] {1})),
            Problem.UNSUPPORTED_VALUE),
        field(
            "arguments Jackson cannot convert",
            GOOD_KEY,
            GOOD_OPERATION,
            new Object(),
            "arguments"),
        badSchema("unknown member next to samples", extraMember),
        badSchema("no samples", Map.of("values", List.of(10))),
        badSchema("empty object", Map.of()),
        badSchema("not an object", List.of(10, 20)),
        badSchema("samples not an array", Map.of("samples", "10,20")),
        badSchema("no samples", samples()),
        badSchema("101 samples", Map.of("samples", hundredAndOne)),
        badSchema("a boolean sample", samples(10, true)),
        badSchema("a fractional sample", samples(10, 10.5)),
        badSchema("a string sample", samples("10")),
        badSchema("a null sample", samples(10, null)),
        badSchema("a negative sample", samples(-1)),
        badSchema("a sample over 10000", samples(10001)),
        badSchema("a sample beyond int", samples(1L << 40)));
  }

  @BeforeEach
  void seedEveryTable() throws SQLException {
    createTickets();
    start(
        b ->
            b.canonicalizer(Canonicalizer.builder().maxInputBytes(MAX_INPUT_BYTES).build())
                .validator(Reports.OPERATION, Reports.VALIDATOR)
                .uniqueness("jobs", Uniqueness.forPeriod(Duration.ofHours(1)))
                .rateLimit( // the receive of the poison message charges a row of rate_claims
                    "poison", dev.onceonly.queue.RateLimit.of(100, Duration.ofHours(1))));
    once.intents().register(IntentKey.of("u-1", "registered"), GOOD_OPERATION, GOOD_ARGS);
    once.schedules()
        .register("nightly", "reports", ScheduleSpec.cron("0 6 * * *"), Map.of("kind", "summary"));
    once.receipts()
        .execute(GOOD_KEY, GOOD_OPERATION, GOOD_ARGS, Ticket.class, Tickets.create("u-1", "x"));
    once.rejections().record("1-0", "{}", "seed");
    seedQueue();
    once.workflows() // a run and its step
        .start(
            dev.onceonly.workflow.Workflow.named("seed").step("only", "seed-steps").build(),
            "wf-1",
            Map.of("n", 3));
    once.externalEffects()
        .claim(
            IntentKey.of("u-1", "external"), "send_mail", Map.of("to", "x"), Duration.ofMinutes(1));
  }

  /**
   * A waiting message with a large payload (its key kept taken for an hour), a dead letter and a
   * paused queue, so every table has a row.
   */
  private void seedQueue() {
    once.queue().sendLarge(null, Message.of("jobs", "big", Map.of("n", 1)), new byte[] {1, 2, 3});
    once.queue().send(Message.of("poison", "dead", Map.of("n", 2)));
    for (Delivery d : once.queue().receive("poison", 1, Duration.ofMinutes(1))) {
      once.queue().deadLetter(d.lease(), "seed");
    }
    once.queue().pause("held", "seed", "a paused queue, so its table has a row");
  }

  static Effect<Ticket, SQLException> mustNotRun() {
    return c -> {
      throw new AssertionError("the effect must not run");
    };
  }

  /** The four ways into the stores that take a request. */
  List<Throwable> callEveryForm(Bad bad) throws SQLException {
    List<Throwable> thrown = new ArrayList<>();
    thrown.add(
        catchThrowable(
            () ->
                once.receipts()
                    .execute(
                        bad.key(), bad.operation(), bad.arguments(), Ticket.class, mustNotRun())));
    thrown.add(
        catchThrowable(() -> once.intents().register(bad.key(), bad.operation(), bad.arguments())));
    try (Connection c = connect()) {
      begin(c);
      thrown.add(
          catchThrowable(
              () ->
                  once.receipts()
                      .execute(
                          c,
                          bad.key(),
                          bad.operation(),
                          bad.arguments(),
                          Ticket.class,
                          mustNotRun())));
      thrown.add(
          catchThrowable(
              () -> once.intents().register(c, bad.key(), bad.operation(), bad.arguments())));
      commit(c);
    }
    return thrown;
  }

  /**
   * One seeded database for every bad request (seeding and migrating one per request cost most of
   * this suite's time on the servers). Each request is its own dynamic test and checks every table
   * against the seed's rows through a fresh connection, so a write by any request fails that
   * request; the last one reopens the store and checks them again.
   */
  @TestFactory
  Stream<DynamicTest> aBadRequestIsRefusedAndWritesNothing() throws SQLException {
    Map<String, List<String>> seeded = snapshot();
    assertThat(seeded.values()).allSatisfy(rows -> assertThat(rows).isNotEmpty());
    Stream<DynamicTest> each =
        badRequests()
            .map(
                bad ->
                    DynamicTest.dynamicTest(
                        bad.name(),
                        () -> {
                          for (Throwable thrown : callEveryForm(bad)) {
                            assertThat(thrown).isInstanceOf(bad.type());
                            bad.detail().accept((RuntimeException) thrown);
                          }
                          assertThat(snapshot()).isEqualTo(seeded);
                        }));
    DynamicTest reopened =
        DynamicTest.dynamicTest(
            "every table as seeded after reopening",
            () -> {
              reopen();
              assertThat(snapshot()).isEqualTo(seeded);
            });
    return Stream.concat(each, Stream.of(reopened));
  }

  @Test
  void lookupsRefuseBadKeysToo() {
    for (IntentKey bad : List.of(IntentKey.of("u-1", ""), IntentKey.of("u 1", "op-17"))) {
      assertThat(catchThrowable(() -> once.receipts().find(bad)))
          .isInstanceOf(InvalidRequestException.class);
      assertThat(catchThrowable(() -> once.intents().find(bad)))
          .isInstanceOf(InvalidRequestException.class);
    }
  }

  @Test
  void theLimitsAdmitWhatFitsAndTheSeedsOwnGoodRequests() throws SQLException {
    // Just under the canonicalizer's limit: {"subject":"xxx…"} is 14 bytes plus the string.
    Map<String, Object> fits = Map.of("subject", "x".repeat(MAX_INPUT_BYTES - 14));
    assertThat(
            once.receipts()
                .execute(
                    IntentKey.of("u-1", "k"),
                    GOOD_OPERATION,
                    fits,
                    Ticket.class,
                    Tickets.create("u-1", "fits")))
        .isInstanceOf(Outcome.Created.class);
    assertThat(
            once.receipts()
                .execute(
                    IntentKey.of("u-1", "r"),
                    Reports.OPERATION,
                    samples(0, 10000, 5),
                    Reports.Report.class,
                    c -> new Reports.Report(3, 0, 10000, 3335.0)))
        .isInstanceOf(Outcome.Created.class);
    // The validator sees the canonical form, as every transport delivers it: 10.0 is 10.
    assertThat(
            once.receipts()
                .execute(
                    IntentKey.of("u-1", "written-as-fraction"),
                    Reports.OPERATION,
                    samples(10.0),
                    Reports.Report.class,
                    c -> new Reports.Report(1, 10, 10, 10.0)))
        .isInstanceOf(Outcome.Created.class);
    IntentKey longest = IntentKey.of("u".repeat(128), "K".repeat(128));
    assertThat(once.intents().register(longest, "o".repeat(100), Map.of()))
        .isInstanceOf(Registration.Registered.class);
    reopen();
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(4);
    assertThat(count("SELECT COUNT(*) FROM onceonly_intents")).isEqualTo(2);
  }
}
