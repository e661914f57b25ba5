package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.ArgumentsValidator;
import dev.onceonly.IntentKey;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.redis.RedisReports.Recorder;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.IntentSteps;
import dev.onceonly.testing.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.RedisClient;

/**
 * One validator, one meaning: the same request through {@code execute}, through the SQL queue's
 * {@link IntentMessage} and through a {@link RedisWorker} gets the same verdict and leaves the same
 * receipts, each path on its own SQLite file, read after reopening it. A caller's {@code 10.0} is
 * the integer {@code 10} on every path, since a message carries the canonical form.
 */
class RedisValidatorPathsTest {
  private static final String OPERATION = "average";
  private static final String QUEUE = "averages";
  private static final IntentKey KEY = IntentKey.of("lab-1", "run-7");
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** "Samples are integers": what a schema of whole counts says. */
  private static final ArgumentsValidator SAMPLES_ARE_INTEGERS =
      arguments -> {
        JsonNode samples = arguments.path("samples");
        if (!samples.isArray() || samples.isEmpty()) {
          throw new InvalidRequestException("arguments", "samples must be a non-empty array");
        }
        for (JsonNode x : samples) {
          if (!x.isIntegralNumber()) {
            throw new InvalidRequestException("arguments", "samples must be integers: " + x);
          }
        }
      };

  @TempDir static Path redisDir;
  private static EmbeddedRedis redis;

  @TempDir Path dir;

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start(redisDir);
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  static Stream<Arguments> requests() {
    return Stream.of(
        Arguments.of(
            "an integer written as 10.0", samples(NODES.numberNode(10.0), NODES.numberNode(3))),
        Arguments.of("integers", samples(NODES.numberNode(10), NODES.numberNode(3))),
        Arguments.of("a fraction", samples(NODES.numberNode(10.5))),
        Arguments.of(
            "1e21, integral but written with an exponent", samples(NODES.numberNode(1e21))),
        Arguments.of("a numeric string", samples(NODES.textNode("10"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("requests")
  void theSameRequestGetsTheSameVerdictAndRowsOnEveryPath(String name, ObjectNode arguments)
      throws Exception {
    Path direct = dir.resolve("execute.db");
    Path queued = dir.resolve("queue.db");
    Path streamed = dir.resolve("redis.db");
    String viaExecute = viaExecute(direct, arguments);
    String viaQueue = viaQueue(queued, arguments);
    String viaRedis = viaRedis(streamed, arguments, name);

    assertThat(List.of(viaQueue, viaRedis))
        .as("verdicts of the queue and Redis")
        .containsOnly(viaExecute);
    List<String> receipts = receipts(direct);
    assertThat(receipts(queued)).as("receipts after the queue").isEqualTo(receipts);
    assertThat(receipts(streamed)).as("receipts after Redis").isEqualTo(receipts);
    assertThat(receipts).hasSize(viaExecute.equals("created") ? 1 : 0);
  }

  private static ObjectNode samples(JsonNode... values) {
    ObjectNode node = NODES.objectNode();
    ArrayNode array = node.putArray("samples");
    for (JsonNode v : values) {
      array.add(v);
    }
    return node;
  }

  private static OnceOnly open(Path file) {
    return OnceOnly.builder()
        .sqlite(file)
        .clock(MutableClock.at("2026-12-01T09:00:00Z"))
        .validator(OPERATION, SAMPLES_ARE_INTEGERS)
        .build();
  }

  /** The effect's result names how many samples it saw and their sum, as the path gave them. */
  private static String effect(JsonNode arguments) {
    double sum = 0;
    for (JsonNode x : arguments.get("samples")) {
      sum += x.asDouble();
    }
    return arguments.get("samples").size() + " samples, sum " + sum;
  }

  private static String verdict(Outcome<String> outcome) {
    return outcome instanceof Outcome.Created ? "created" : outcome.getClass().getSimpleName();
  }

  private static String refused(InvalidRequestException e) {
    return "refused: " + e.field();
  }

  private static String viaExecute(Path file, ObjectNode arguments) {
    try (OnceOnly once = open(file)) {
      return verdict(
          once.receipts().execute(KEY, OPERATION, arguments, String.class, c -> effect(arguments)));
    } catch (InvalidRequestException e) {
      return refused(e);
    }
  }

  /** Sends the intent's message, then receives, decodes and applies it inside its completion. */
  private static String viaQueue(Path file, ObjectNode arguments) throws Exception {
    try (OnceOnly once = open(file)) {
      once.queue().send(new IntentMessage(KEY, OPERATION, arguments).toMessage(QUEUE));
      List<Delivery> deliveries = once.queue().receive(QUEUE, 10, Duration.ofMinutes(1));
      assertThat(deliveries).hasSize(1);
      Delivery d = deliveries.get(0);
      IntentMessage m = IntentMessage.decode(d.payload());
      List<Outcome<String>> outcome = new ArrayList<>();
      try {
        once.queue()
            .complete(
                d.lease(),
                tx ->
                    outcome.add(
                        IntentSteps.execute(
                            once, tx, m, String.class, c -> effect(m.arguments()))));
        return verdict(outcome.get(0));
      } catch (InvalidRequestException e) {
        once.queue().deadLetter(d.lease(), e.getMessage());
        return refused(e);
      }
    }
  }

  /** Adds the message to a stream and lets a worker apply it; a refusal becomes a rejection. */
  private static String viaRedis(Path file, ObjectNode arguments, String streamName) {
    try (OnceOnly once = open(file);
        RedisClient client = redis.client()) {
      RedisStream stream =
          RedisStream.builder(client, "validator-" + Integer.toHexString(streamName.hashCode()))
              .maxLength(0)
              .build();
      stream.add(new StreamMessage(KEY, OPERATION, arguments));
      Queue<Recorder.Event> events = Recorder.events();
      try (RedisWorker<String> worker =
          RedisWorker.builder(stream, once, String.class, (c, m) -> effect(m.arguments()))
              .consumer("c1")
              .block(Duration.ofMillis(50))
              .requireRegisteredIntent(false)
              .listener(new Recorder("c1", events))
              .build()) {
        worker.start();
        Eventually.await(WAIT, "the entry settled", () -> !events.isEmpty());
      }
      Recorder.Event event = events.peek();
      if (event.result() == RedisWorker.Result.REJECTED) {
        assertThat(once.rejections().list(10)).hasSize(1);
        // The worker keeps the reason only; the store's message names the field first.
        return "refused: " + event.detail().substring(0, event.detail().indexOf(':'));
      }
      assertThat(event.result()).isEqualTo(RedisWorker.Result.CREATED);
      return "created";
    }
  }

  private static List<String> receipts(Path file) {
    return Db.strings(
        file,
        "SELECT scope || ' ' || intent_key || ' ' || fingerprint || ' ' || result"
            + " FROM onceonly_receipts ORDER BY scope, intent_key");
  }
}
