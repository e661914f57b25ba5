package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.cli.demo.ReportPipeline;
import dev.onceonly.cli.demo.Reports.Report;
import dev.onceonly.testing.Eventually;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;

/**
 * The example of README.md's "Redis Streams" section, compiled and run (on the embedded server's
 * port instead of 6379), so that the README cannot drift away from the API.
 */
class ReadmeRedisExampleTest {
  @TempDir Path dir;

  static Report insertReport(Connection tx, StreamMessage message) throws Exception {
    return RedisReports.EFFECT.apply(tx, message);
  }

  @Test
  void theReadmeExampleRuns() throws Exception {
    try (EmbeddedRedis redis = EmbeddedRedis.start(Files.createDirectories(dir.resolve("redis")));
        OnceOnly once = ReportPipeline.open(dir.resolve("app.db"))) {
      IntentKey key = IntentKey.of("workshop", "batch-A");
      JsonNode arguments = RedisReports.arguments(List.of(10, 20, 30));
      RedisClient client = RedisClient.create("localhost", redis.port());
      // ---- README.md, Redis Streams ----
      RedisStream stream =
          RedisStream.builder(client, "reports").build(); // RedisClient.create(host, port)
      RedisProducer.of(once.intents(), stream)
          .publish(key, "make_report", arguments); // register, then XADD
      RedisWorker<Report> worker =
          RedisWorker.builder(
                  stream, once, Report.class, (tx, message) -> insertReport(tx, message))
              .consumer("worker-1")
              .build()
              .start(); // XREADGROUP, receipt, then XACK
      Reconciler.of(once.intents(), stream.publisher())
          .reconcile(); // re-XADD intents with no receipt
      // at shutdown: worker.close(), then client.close()
      // ---- end of the README's example ----
      try {
        Eventually.await(
            Duration.ofSeconds(20),
            "the report written",
            () -> once.intents().pending(10).isEmpty() && stream.pendingCount() == 0);
      } finally {
        worker.close();
        client.close();
      }
      assertThat(once.receipts().find(key).orElseThrow().resultJson()).contains("\"mean\":20.0");
    }
  }
}
