package dev.onceonly.redis;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.cli.demo.RedisTransport;
import dev.onceonly.cli.demo.Reports;
import dev.onceonly.cli.demo.Reports.Report;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * The report workshop's receiver on a Redis stream: the effect that writes one row of the {@code
 * reports} table (created by {@code ReportPipeline.open}) per intent, and what the tests need
 * around it.
 */
final class RedisReports {
  private RedisReports() {}

  /** The effect: the demo's report row of the message's samples, in the step's transaction. */
  static final RedisWorker.StreamEffect<Report> EFFECT = RedisTransport.EFFECT;

  /** Returns {@code {"samples": samples}}. */
  static ObjectNode arguments(List<Integer> samples) {
    ObjectNode arguments = JsonNodeFactory.instance.objectNode();
    samples.forEach(arguments.putArray("samples")::add);
    return arguments;
  }

  /** Returns a worker on the stream for {@link Reports#OPERATION}, quick to recover in tests. */
  static RedisWorker.Builder<Report> worker(RedisStream stream, OnceOnly once, String consumer) {
    return RedisWorker.builder(stream, once, Report.class, EFFECT)
        .consumer(consumer)
        .batchSize(10)
        .block(java.time.Duration.ofMillis(100))
        .claimIdle(java.time.Duration.ofMillis(300))
        .claimInterval(java.time.Duration.ofMillis(100))
        .reconnectBackoff(java.time.Duration.ofMillis(20), java.time.Duration.ofMillis(200));
  }

  /** Runs one reconciliation pass onto the stream. */
  static Reconciler.Report reconcile(OnceOnly once, RedisStream stream) {
    return Reconciler.of(once.intents(), stream.publisher()).reconcile();
  }

  /** Returns the group's pending entries as {@code [id, consumer, idle, deliveries]} rows. */
  static List<Object> pendingEntries(UnifiedJedis client, RedisStream stream) {
    return Replies.list(
        client.sendCommand(
            Protocol.Command.XPENDING, stream.name(), stream.group(), "-", "+", "1000"));
  }

  /** Returns the stream's length. */
  static long length(UnifiedJedis client, RedisStream stream) {
    return Replies.number(client.sendCommand(Protocol.Command.XLEN, stream.name()));
  }

  /** Adds raw fields as an entry, bypassing the message format (hostile input). */
  static String addRaw(UnifiedJedis client, RedisStream stream, List<byte[]> fieldsAndValues) {
    byte[][] args = new byte[fieldsAndValues.size() + 2][];
    args[0] = stream.name().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    args[1] = new byte[] {'*'};
    for (int i = 0; i < fieldsAndValues.size(); i++) {
      args[i + 2] = fieldsAndValues.get(i);
    }
    return Replies.text(client.sendCommand(Protocol.Command.XADD, args));
  }

  /** Records what workers settled, by entry id. */
  static class Recorder implements RedisWorker.Listener {
    record Event(String consumer, String id, RedisWorker.Result result, String detail) {}

    final String consumer;
    final Queue<Event> events;

    Recorder(String consumer, Queue<Event> events) {
      this.consumer = consumer;
      this.events = events;
    }

    static Queue<Event> events() {
      return new ConcurrentLinkedQueue<>();
    }

    @Override
    public void settled(String id, RedisWorker.Result result, String detail) {
      events.add(new Event(consumer, id, result, detail));
    }
  }
}
