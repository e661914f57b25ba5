package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.onceonly.CanonicalizationException;
import dev.onceonly.Canonicalizer;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.external.Failure;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.RetryPolicy;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Extreme durations, instants and limits at every public method that takes one: each must be
 * refused with {@link IllegalArgumentException} or {@link InvalidRequestException} (or {@link
 * CanonicalizationException}) and a message naming it, never an {@link ArithmeticException}, a
 * {@code DateTimeException} or a {@link StackOverflowError}, and nothing may be written: the rows
 * of a SQLite file are compared before and after, through a fresh connection.
 */
class ExtremeValuesTest {
  static final Duration HUGE = Duration.ofSeconds(Long.MAX_VALUE);
  static final Duration HUGE_MILLIS = Duration.ofMillis(Long.MAX_VALUE - 1);
  static final Duration CENTURIES = Duration.ofDays(365L * 1000);

  @TempDir Path dir;

  /** What a case gets: an open store with one message received under a lease. */
  record Ctx(OnceOnly once, Lease lease) {}

  @FunctionalInterface
  interface Call {
    void on(Ctx ctx) throws Exception;
  }

  private static Arguments call(String name, Call call) {
    return Arguments.of(Named.of(name, call));
  }

  private static Call builder(Consumer<OnceOnlyBuilder> setting) {
    return ctx -> setting.accept(OnceOnly.builder());
  }

  private static Call policy(Consumer<RetryPolicy.Builder> setting) {
    return ctx -> setting.accept(RetryPolicy.builder());
  }

  private static Call worker(Consumer<Worker.Builder> setting) {
    return ctx -> setting.accept(Worker.builder(ctx.once().queue(), "q", job -> {}));
  }

  private static Map<String, Object> selfReferencingMap() {
    Map<String, Object> m = new HashMap<>();
    m.put("self", m);
    return m;
  }

  private static List<Object> selfReferencingList() {
    List<Object> l = new ArrayList<>();
    l.add(l);
    return l;
  }

  /** A bean that returns itself as a property. */
  public static final class Loop {
    public Loop getNext() {
      return this;
    }
  }

  private static Call execute(Object arguments) {
    return ctx ->
        ctx.once()
            .receipts()
            .execute(IntentKey.of("s", "k"), "op", arguments, String.class, c -> "ran");
  }

  static List<Arguments> calls() {
    return List.of(
        call("resultRetention(MAX seconds)", builder(b -> b.resultRetention(HUGE))),
        call("resultRetention(MAX-1 ms)", builder(b -> b.resultRetention(HUGE_MILLIS))),
        call("resultRetention(1000 years)", builder(b -> b.resultRetention(CENTURIES))),
        call("tombstoneRetention(MAX seconds)", builder(b -> b.tombstoneRetention(HUGE))),
        call(
            "tombstoneRetention(negative)",
            builder(b -> b.tombstoneRetention(Duration.ofDays(-1)))),
        call("busyTimeout(MAX seconds)", builder(b -> b.busyTimeout(HUGE))),
        call("busyTimeout(zero)", builder(b -> b.busyTimeout(Duration.ZERO))),
        call("groupCommit maxWait MAX seconds", builder(b -> b.groupCommit(64, HUGE))),
        call("groupCommit maxBatch 0", builder(b -> b.groupCommit(0, Duration.ZERO))),
        call(
            "maxDepth(Integer.MAX_VALUE)",
            ctx -> Canonicalizer.builder().maxDepth(Integer.MAX_VALUE)),
        call("maxDepth(0)", ctx -> Canonicalizer.builder().maxDepth(0)),
        call("receive lease MAX-1 ms", ctx -> ctx.once().queue().receive("q", 1, HUGE_MILLIS)),
        call("receive lease MAX seconds", ctx -> ctx.once().queue().receive("q", 1, HUGE)),
        call("receive lease zero", ctx -> ctx.once().queue().receive("q", 1, Duration.ZERO)),
        call(
            "receive max Integer.MAX_VALUE",
            ctx -> ctx.once().queue().receive("q", Integer.MAX_VALUE, Duration.ofSeconds(1))),
        call("renew MAX seconds", ctx -> ctx.once().queue().renew(ctx.lease(), HUGE)),
        call("renew MAX-1 ms", ctx -> ctx.once().queue().renew(ctx.lease(), HUGE_MILLIS)),
        call(
            "reschedule Instant.MAX",
            ctx -> ctx.once().queue().reschedule(ctx.lease(), Instant.MAX)),
        call(
            "reschedule Instant.MIN",
            ctx -> ctx.once().queue().reschedule(ctx.lease(), Instant.MIN)),
        call(
            "nack requiredWait MAX seconds",
            ctx -> ctx.once().queue().nack(ctx.lease(), "x", HUGE)),
        call(
            "deliverAt Instant.MAX",
            ctx -> ctx.once().queue().send(Message.of("q", "m2", Map.of()).deliverAt(Instant.MAX))),
        call(
            "deliverAt Instant.MIN",
            ctx -> ctx.once().queue().send(Message.of("q", "m2", Map.of()).deliverAt(Instant.MIN))),
        call("baseDelay MAX seconds", policy(p -> p.baseDelay(HUGE))),
        call("maxDelay MAX seconds", policy(p -> p.maxDelay(HUGE))),
        call("maxElapsed MAX seconds", policy(p -> p.maxElapsed(HUGE))),
        call("maxAttempts 0", policy(p -> p.maxAttempts(0))),
        call("Worker lease MAX seconds", worker(w -> w.lease(HUGE))),
        call(
            "Worker idleBackoff MAX seconds",
            worker(w -> w.idleBackoff(Duration.ofMillis(1), HUGE))),
        call("Worker shutdownTimeout MAX seconds", worker(w -> w.shutdownTimeout(HUGE))),
        call(
            "claim lease MAX-1 ms",
            ctx ->
                ctx.once()
                    .externalEffects()
                    .claim(IntentKey.of("s", "c"), "pay", Map.of(), HUGE_MILLIS)),
        call(
            "claim lease MAX seconds",
            ctx ->
                ctx.once().externalEffects().claim(IntentKey.of("s", "c"), "pay", Map.of(), HUGE)),
        call("Failure.rateLimited MAX seconds", ctx -> Failure.rateLimited("slow down", HUGE)),
        call("self-referencing map argument", execute(selfReferencingMap())),
        call("self-referencing list argument", execute(selfReferencingList())),
        call("self-referencing bean argument", execute(new Loop())),
        call(
            "self-referencing message payload",
            ctx -> ctx.once().queue().send("q", "m3", selfReferencingMap())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("calls")
  void isRefusedWithAMessageAndWritesNothing(Call call) throws Exception {
    Path file = dir.resolve("extreme.db");
    MutableClock clock = MutableClock.at("2030-01-15T10:00:00Z");
    Map<String, List<String>> before;
    Throwable thrown;
    try (OnceOnly once = OnceOnly.builder().sqlite(file).clock(clock).build()) {
      once.queue().send("q", "m1", Map.of("n", 1));
      Delivery d = once.queue().receive("q", 1, Duration.ofMinutes(1)).get(0);
      before = rows(file);
      thrown = catchThrowable(() -> call.on(new Ctx(once, d.lease())));
    }
    assertThat(thrown)
        .isNotNull()
        .isInstanceOfAny(
            IllegalArgumentException.class,
            InvalidRequestException.class,
            CanonicalizationException.class);
    assertThat(thrown.getMessage()).isNotBlank();
    assertThat(rows(file)).as("rows after reopening").isEqualTo(before);
  }

  /** Every row of every table, as text. */
  private static Map<String, List<String>> rows(Path file) throws SQLException {
    Map<String, List<String>> out = new java.util.TreeMap<>();
    for (String table :
        Db.strings(file, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) {
      try (Connection c = Db.open(file);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT * FROM \"" + table + "\"")) {
        ResultSetMetaData meta = rs.getMetaData();
        List<String> list = new ArrayList<>();
        while (rs.next()) {
          StringBuilder row = new StringBuilder();
          for (int i = 1; i <= meta.getColumnCount(); i++) {
            row.append(rs.getString(i)).append('|');
          }
          list.add(row.toString());
        }
        out.put(table, list);
      }
    }
    return out;
  }
}
