package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;

/**
 * A Redis worker's failures reach the log even when no {@link RedisWorker.Listener} is given: a
 * Redis server that goes away, and effects that fail and leave their entries pending, each logged
 * once per run of failures at WARNING (a stopped server fails every retry of the loop), and the
 * return to reading at INFO. Before, both went only to the listener, whose default does nothing.
 */
class RedisWorkerLoggingTest {
  @RegisterExtension final LogCapture log = LogCapture.of(RedisWorker.class);
  private final List<LogRecord> records = log.records();

  @TempDir Path dir;

  @Test
  void aStoppedServerIsLoggedOnceAndTheReturnOnce() throws Exception {
    AtomicInteger disconnects = new AtomicInteger();
    try (EmbeddedRedis redis = EmbeddedRedis.start(dir);
        RedisClient client = redis.client();
        OnceOnly once = OnceOnly.openSqlite(dir.resolve("app.db"))) {
      RedisStream stream = RedisStream.builder(client, "logged").build();
      try (RedisWorker<String> worker =
          quick(RedisWorker.builder(stream, once, String.class, (c, m) -> "done"))
              .listener(
                  new RedisWorker.Listener() {
                    @Override
                    public void disconnected(RuntimeException e) {
                      disconnects.incrementAndGet();
                    }
                  })
              .build()
              .start()) {
        redis.stop();
        Eventually.await(
            Duration.ofSeconds(30), "three failed reads", () -> disconnects.get() >= 3);
        assertThat(warnings("cannot read stream")).hasSize(1);
        assertThat(warnings("cannot read stream").get(0).getMessage())
            .contains(worker.consumer())
            .contains("logged");
        assertThat(infos()).isEmpty();

        redis.restart();
        Eventually.await(Duration.ofSeconds(30), "reading again", () -> !infos().isEmpty());
        assertThat(infos()).hasSize(1);
        assertThat(infos().get(0).getParameters()).containsExactly(worker.consumer(), "logged");
        assertThat(warnings("cannot read stream")).hasSize(1);
      }
    }
  }

  @Test
  void failingEffectsAreLoggedOncePerRunOfFailures() throws Exception {
    Path file = dir.resolve("app.db");
    Queue<String> settled = new ConcurrentLinkedQueue<>();
    try (EmbeddedRedis redis = EmbeddedRedis.start(dir);
        RedisClient client = redis.client();
        OnceOnly once = OnceOnly.openSqlite(file)) {
      RedisStream stream = RedisStream.builder(client, "effects").build();
      RedisProducer producer = RedisProducer.of(once.intents(), stream);
      AtomicInteger gate = new AtomicInteger(1); // 1: effects fail, 0: they succeed
      RedisWorker.StreamEffect<String> effect =
          (c, m) -> {
            if (gate.get() == 1) {
              throw new IllegalStateException("downstream refused " + m.key().key());
            }
            return "done " + m.key().key();
          };
      try (RedisWorker<String> worker =
          quick(RedisWorker.builder(stream, once, String.class, effect))
              .maxDeliveries(1_000)
              .listener(
                  new RedisWorker.Listener() {
                    @Override
                    public void settled(String id, RedisWorker.Result result, String detail) {
                      settled.add(result + " " + detail);
                    }
                  })
              .build()
              .start()) {
        producer.publish(IntentKey.of("s", "k1"), "op", Map.of("n", 1));
        producer.publish(IntentKey.of("s", "k2"), "op", Map.of("n", 2));
        Eventually.await(
            Duration.ofSeconds(30),
            "both entries failed, one of them again",
            () -> failures(settled, "k1") >= 2 && failures(settled, "k2") >= 1);
        assertThat(warnings("stays pending")).hasSize(1);
        assertThat(warnings("stays pending").get(0).getThrown())
            .hasMessageStartingWith("downstream refused");

        gate.set(0);
        Eventually.await(
            Duration.ofSeconds(30),
            "both created",
            () -> settled.contains("CREATED done k1") && settled.contains("CREATED done k2"));
        gate.set(1);
        producer.publish(IntentKey.of("s", "k3"), "op", Map.of("n", 3));
        Eventually.await(
            Duration.ofSeconds(30), "the third failed", () -> failures(settled, "k3") >= 1);
        assertThat(warnings("stays pending")).as("a new run of failures").hasSize(2);
      }
    }
    assertThat(Db.strings(file, "SELECT intent_key FROM onceonly_receipts ORDER BY intent_key"))
        .containsExactly("k1", "k2");
  }

  private static long failures(Queue<String> settled, String key) {
    return settled.stream().filter(s -> s.startsWith("FAILED") && s.endsWith(" " + key)).count();
  }

  private static <T> RedisWorker.Builder<T> quick(RedisWorker.Builder<T> b) {
    return b.batchSize(10)
        .block(Duration.ofMillis(100))
        .claimIdle(Duration.ofMillis(300))
        .claimInterval(Duration.ofMillis(100))
        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200));
  }

  private List<LogRecord> warnings(String containing) {
    return records.stream()
        .filter(r -> r.getLevel() == Level.WARNING && r.getMessage().contains(containing))
        .toList();
  }

  private List<LogRecord> infos() {
    return records.stream().filter(r -> r.getLevel() == Level.INFO).toList();
  }
}
