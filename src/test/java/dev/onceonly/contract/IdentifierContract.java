package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.onceonly.IntentKey;
import dev.onceonly.IntentPublisher;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.Outcome;
import dev.onceonly.Registration;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.Message;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Identifiers under a widened pattern ({@code [^\s]{1,64}}, a natural choice for a user): two
 * scopes or keys a driver would store as the same text are refused, whatever the pattern allows,
 * and two intents whose {@code scope/key} would read the same are two rows everywhere (receipts,
 * intents, queue messages, dead letters). Rows are counted through a fresh connection after
 * reopening the store.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class IdentifierContract extends ContractSupport {
  static final String WIDE = "[^\\s]{1,64}";
  static final String QUEUE = "intents";
  static final Map<String, Object> ARGS = Map.of("v", 1);

  /** {@code a/b} with {@code c}, and {@code a} with {@code b/c}: one {@code a/b/c} if joined. */
  static final IntentKey SLASH_IN_SCOPE = IntentKey.of("a/b", "c");

  static final IntentKey SLASH_IN_KEY = IntentKey.of("a", "b/c");

  private void startWide() {
    start(b -> b.scopePattern(WIDE).keyPattern(WIDE));
  }

  /** Stores the scope as the result; for scopes and keys without unpaired surrogates. */
  private Outcome<String> execute(IntentKey key) throws Exception {
    return once.receipts().execute(key, "change", ARGS, String.class, c -> key.scope());
  }

  /** Stores a fixed result, so that a stored scope {@code t?} answers any rival as Repeated. */
  private Outcome<String> executeDone(IntentKey key) throws Exception {
    return once.receipts().execute(key, "change", ARGS, String.class, c -> "done");
  }

  private static void assertRefused(String field, Supplier<Object> call) {
    Throwable thrown = catchThrowable(call::get);
    assertThat(thrown).isInstanceOf(InvalidRequestException.class);
    assertThat(((InvalidRequestException) thrown).field()).isEqualTo(field);
  }

  @Test
  void unpairedSurrogatesAreRefusedInScopesAndKeysWhateverThePatternAndWriteNothing()
      throws Exception {
    startWide();
    Map<String, List<String>> before = snapshot();
    for (String scope : List.of("t\uD800", "t\uDBFF", "\uDC00t", "t\uDFFF\uD800")) {
      IntentKey key = IntentKey.of(scope, "k-1");
      assertRefused("scope", () -> uncheck(() -> executeDone(key)));
      assertRefused("scope", () -> once.intents().register(key, "change", ARGS));
      assertRefused("scope", () -> once.receipts().find(key));
      assertRefused(
          "scope",
          () -> once.externalEffects().claim(key, "send_mail", ARGS, Duration.ofMinutes(1)));
    }
    for (String k : List.of("k\uD800", "k\uDBFF")) {
      assertRefused("key", () -> uncheck(() -> executeDone(IntentKey.of("tenant", k))));
    }
    // A well-formed pair is a supplementary character, and is allowed.
    assertThat(execute(IntentKey.of("t\uD83D\uDE00", "k-1"))).isInstanceOf(Outcome.Created.class);
    reopen();
    Map<String, List<String>> after = snapshot();
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(1);
    assertThat(strings("SELECT scope FROM onceonly_receipts")).containsExactly("t\uD83D\uDE00");
    after.remove("onceonly_receipts");
    before.remove("onceonly_receipts");
    assertThat(after).isEqualTo(before);
  }

  @Test
  void controlCharactersAreRefusedInScopesKeysAndOperations() throws Exception {
    start(b -> b.scopePattern("(?s).{1,64}").keyPattern("(?s).{1,64}"));
    Map<String, List<String>> before = snapshot();
    for (String bad : List.of("x\u0000y", "x\u0001y", "x\u007Fy", "x\u0085y", "x\ny")) {
      assertRefused("scope", () -> uncheck(() -> execute(IntentKey.of(bad, "k"))));
      assertRefused("key", () -> once.intents().register(IntentKey.of("s", bad), "change", ARGS));
      assertRefused("operation", () -> once.intents().register(IntentKey.of("s", "k"), bad, ARGS));
    }
    reopen();
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void twoIntentsWhoseScopeSlashKeyReadTheSameAreTwoReceiptsAndTwoIntents() throws Exception {
    startWide();
    assertThat(execute(SLASH_IN_SCOPE)).isInstanceOf(Outcome.Created.class);
    assertThat(execute(SLASH_IN_KEY)).isInstanceOf(Outcome.Created.class);
    assertThat(once.intents().register(SLASH_IN_SCOPE, "change", ARGS))
        .isInstanceOf(Registration.Registered.class);
    assertThat(once.intents().register(SLASH_IN_KEY, "change", ARGS))
        .isInstanceOf(Registration.Registered.class);
    reopen();
    assertThat(strings("SELECT scope || ' ' || intent_key || ' ' || result FROM onceonly_receipts"))
        .containsExactlyInAnyOrder("a/b c \"a/b\"", "a b/c \"a\"");
    assertThat(count("SELECT COUNT(*) FROM onceonly_intents")).isEqualTo(2);
  }

  @Test
  void twoIntentsWhoseScopeSlashKeyReadTheSameAreTwoQueueMessages() {
    startWide();
    IntentPublisher publisher = IntentMessage.publisher(once.queue(), QUEUE);
    for (IntentKey key : List.of(SLASH_IN_SCOPE, SLASH_IN_KEY)) {
      once.intents().register(key, "change", ARGS);
      assertThat(publisher.publish(once.intents().find(key).orElseThrow()))
          .as("publishing %s", key)
          .isEqualTo(IntentPublisher.Publication.PUBLISHED);
    }
    reopen();
    assertThat(strings("SELECT message_key FROM onceonly_messages ORDER BY message_key"))
        .containsExactly("a/b/c", "x:a@2f.b@@c");
    List<IntentKey> delivered =
        once.queue().receive(QUEUE, 10, Duration.ofMinutes(1)).stream()
            .map(d -> IntentMessage.decode(d.payload()).key())
            .toList();
    assertThat(delivered).containsExactlyInAnyOrder(SLASH_IN_SCOPE, SLASH_IN_KEY);
  }

  @Test
  void aDeadLetterOfOneIntentDoesNotStopTheOtherWhoseScopeSlashKeyReadsTheSame() {
    startWide();
    IntentPublisher publisher = IntentMessage.publisher(once.queue(), QUEUE);
    once.intents().register(SLASH_IN_SCOPE, "change", ARGS);
    once.intents().register(SLASH_IN_KEY, "change", ARGS);
    publisher.publish(once.intents().find(SLASH_IN_SCOPE).orElseThrow());
    for (Delivery d : once.queue().receive(QUEUE, 10, Duration.ofMinutes(1))) {
      once.queue().deadLetter(d.lease(), "poison");
    }
    assertThat(publisher.publish(once.intents().find(SLASH_IN_SCOPE).orElseThrow()))
        .isEqualTo(IntentPublisher.Publication.DEAD_LETTERED);
    assertThat(publisher.publish(once.intents().find(SLASH_IN_KEY).orElseThrow()))
        .isEqualTo(IntentPublisher.Publication.PUBLISHED);
    reopen();
    assertThat(count("SELECT COUNT(*) FROM onceonly_dead_letters")).isEqualTo(1);
    assertThat(strings("SELECT message_key FROM onceonly_messages")).containsExactly("a/b/c");
  }

  @Test
  void aDeadLetterWrittenUnderTheOldFormDoesNotStopTheIntentThatNowOwnsThatKey() {
    startWide();
    // An earlier version wrote scope a/b with key c as "a/b/c", now the key of a with b/c.
    IntentMessage old =
        new IntentMessage(
            SLASH_IN_SCOPE, "change", JsonNodeFactory.instance.objectNode().put("v", 1));
    once.queue().send(Message.of(QUEUE, "a/b/c", old.toJson()));
    for (Delivery d : once.queue().receive(QUEUE, 10, Duration.ofMinutes(1))) {
      once.queue().deadLetter(d.lease(), "poison");
    }
    once.intents().register(SLASH_IN_KEY, "change", ARGS);
    assertThat(
            IntentMessage.publisher(once.queue(), QUEUE)
                .publish(once.intents().find(SLASH_IN_KEY).orElseThrow()))
        .isEqualTo(IntentPublisher.Publication.PUBLISHED);
    reopen();
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages")).isEqualTo(1);
  }

  @Test
  void rejectionsRefuseDeliveryIdsADriverWouldStoreAlike() {
    start();
    Map<String, List<String>> before = snapshot();
    for (String id : List.of("x\uD800", "x\uDBFF", "x\u0000", "x\u001F")) {
      assertRefused("deliveryId", () -> once.rejections().record(id, "{}", "r"));
    }
    assertThat(once.rejections().record("x\uD83D\uDE00", "{}", "r")).isTrue();
    reopen();
    assertThat(strings("SELECT delivery_id FROM onceonly_rejections"))
        .containsExactly("x\uD83D\uDE00");
    Map<String, List<String>> after = snapshot();
    after.remove("onceonly_rejections");
    before.remove("onceonly_rejections");
    assertThat(after).isEqualTo(before);
  }

  /** A call that declares exceptions, for {@link #assertRefused}. */
  @FunctionalInterface
  interface Call {
    Object run() throws Exception;
  }

  private static Object uncheck(Call call) {
    try {
      return call.run();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
