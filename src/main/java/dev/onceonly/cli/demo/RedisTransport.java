package dev.onceonly.cli.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.IntentPublisher;
import dev.onceonly.OnceOnly;
import dev.onceonly.cli.demo.ReportPipeline.ReportJob;
import dev.onceonly.cli.demo.Reports.Report;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendResult;
import dev.onceonly.redis.MalformedMessageException;
import dev.onceonly.redis.MessageDecoder;
import dev.onceonly.redis.RedisProducer;
import dev.onceonly.redis.RedisStream;
import dev.onceonly.redis.RedisTransportException;
import dev.onceonly.redis.RedisWorker;
import dev.onceonly.redis.StreamMessage;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The demo's jobs on a Redis stream ({@link #STREAM}, consumer group {@code onceonly}) with the
 * library's optional transport: a {@link RedisProducer} registers each intent in the store and then
 * adds its entry, {@link RedisWorker}s apply the entries with the report workshop's receiver
 * ({@link #EFFECT}) and acknowledge them after the commit. The receipts, intents and rejections
 * stay in the store. Needs Jedis on the class path; closing the transport closes its client.
 */
public final class RedisTransport implements Transport, AutoCloseable {
  /** The stream's key. */
  public static final String STREAM = "onceonly-demo:reports";

  /** The consumer that takes one entry and dies inside its effect. */
  static final String CRASHING_CONSUMER = "worker-crash";

  /** How many undelivered entries {@link #unsettled()} counts at most. */
  private static final int MAX_COUNTED = 100_000;

  /**
   * The report workshop's effect on a stream entry: the {@code reports} row of the message's
   * samples, inserted in the receipt step's transaction (the same row {@link ReportHandler} writes
   * for the SQL queue).
   */
  public static final RedisWorker.StreamEffect<Report> EFFECT =
      (c, message) -> ReportHandler.insertReport(c, message.key(), message.arguments());

  private final String where;
  private final UnifiedJedis client;
  private final RedisStream stream;
  private final OnceOnly once;
  private final RedisProducer producer;
  private final MessageDecoder decoder;

  private RedisTransport(String where, UnifiedJedis client, OnceOnly once) {
    this.where = where;
    this.client = client;
    this.once = once;
    this.stream = RedisStream.builder(client, STREAM).build();
    this.producer = RedisProducer.of(once.intents(), stream);
    this.decoder = MessageDecoder.of(stream.canonicalizer());
  }

  /**
   * Connects to a Redis server, checks that it answers, and creates the stream and its group if
   * they are missing.
   *
   * @param hostAndPort {@code host:port}, for example {@code localhost:6379}
   * @param once the store, opened with {@link ReportPipeline#builder()}
   * @return the transport; the caller closes it
   * @throws IllegalArgumentException if {@code hostAndPort} is not of that form
   * @throws RedisTransportException if the server cannot be reached or refuses
   */
  public static RedisTransport connect(String hostAndPort, OnceOnly once) {
    Objects.requireNonNull(once, "once");
    RedisClient client = client(hostAndPort);
    try {
      RedisTransport transport = new RedisTransport(hostAndPort, client, once);
      transport.stream.ensureGroup();
      return transport;
    } catch (RedisTransportException e) {
      client.close();
      throw e.getCause() instanceof JedisException j && !(j instanceof JedisDataException)
          ? unreachable(hostAndPort, j)
          : e;
    }
  }

  /**
   * Checks that a Redis server answers {@code PING} at an address, before anything is written.
   *
   * @param hostAndPort {@code host:port}
   * @throws IllegalArgumentException if {@code hostAndPort} is not of that form
   * @throws RedisTransportException if the server cannot be reached or refuses
   */
  public static void check(String hostAndPort) {
    try (RedisClient client = client(hostAndPort)) {
      client.sendCommand(Protocol.Command.PING);
    } catch (JedisException e) {
      throw unreachable(hostAndPort, e);
    }
  }

  /** The failure, with its first cause's message: "Failed to create socket." says too little. */
  private static RedisTransportException unreachable(String hostAndPort, JedisException e) {
    Throwable cause = e.getCause();
    String why =
        cause == null || cause.getMessage() == null
            ? ""
            : " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")";
    return new RedisTransportException("cannot reach Redis at " + hostAndPort + why, e);
  }

  private static RedisClient client(String hostAndPort) {
    Objects.requireNonNull(hostAndPort, "hostAndPort");
    int colon = hostAndPort.lastIndexOf(':');
    int port = -1;
    if (colon > 0) {
      try {
        port = Integer.parseInt(hostAndPort.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
    }
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException(
          "expected HOST:PORT with a port from 1 to 65535, got \"" + hostAndPort + "\"");
    }
    return RedisClient.create(hostAndPort.substring(0, colon), port);
  }

  @Override
  public String describe() {
    return "the Redis stream " + STREAM + " at " + where;
  }

  @Override
  public SendResult publish(ReportJob job) {
    RedisProducer.Publication p = producer.publish(job.key(), Reports.OPERATION, job.arguments());
    // A stream keeps every copy: the receivers, not the transport, recognise a repetition.
    return new SendResult(
        p.published() ? SendResult.Status.SENT : SendResult.Status.CONFLICT,
        STREAM,
        job.key().toString());
  }

  /**
   * Adds each message as a raw entry: an intent message as the fields of a {@link StreamMessage},
   * anything else as its top-level members, which the workers' decoder refuses.
   */
  @Override
  public void inject(List<Message> messages) {
    for (Message m : messages) {
      JsonNode payload = (JsonNode) m.payload();
      List<String> fields = new ArrayList<>();
      IntentMessage intent = decodeOrNull(payload);
      if (intent != null) {
        new StreamMessage(intent.key(), intent.operation(), intent.arguments())
            .fields(stream.canonicalizer())
            .forEach(
                (k, v) -> {
                  fields.add(k);
                  fields.add(v);
                });
      } else {
        for (Iterator<Map.Entry<String, JsonNode>> it = payload.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          fields.add(e.getKey());
          fields.add(e.getValue().toString());
        }
      }
      List<String> args = new ArrayList<>(List.of(STREAM, "*"));
      args.addAll(fields);
      call(Protocol.Command.XADD, args.toArray(new String[0]));
    }
  }

  private static IntentMessage decodeOrNull(JsonNode payload) {
    try {
      return IntentMessage.decode(payload);
    } catch (RuntimeException e) {
      return null; // not an intent message: injected as it is
    }
  }

  /**
   * Reads one new entry as {@link #CRASHING_CONSUMER} and runs the step, which crashes: the entry
   * is never acknowledged and stays pending until a worker takes it over with {@code XAUTOCLAIM},
   * once it has been idle for the workers' lease (on a stream, the idle time after which an entry
   * is taken over is the workers', so {@code lease} is not used).
   */
  @Override
  public String crashOne(Duration lease, Step step) throws SQLException {
    List<Object> entry =
        firstEntry(
            call(
                Protocol.Command.XREADGROUP,
                "GROUP",
                stream.group(),
                CRASHING_CONSUMER,
                "COUNT",
                "1",
                "STREAMS",
                STREAM,
                ">"));
    if (entry == null) {
      return "";
    }
    String id = text(entry.get(0));
    StreamMessage message;
    try {
      message = decoder.decode(bytes(entry.get(1)));
    } catch (MalformedMessageException e) {
      return "took entry " + id + ", not a message: left pending for the workers to reject";
    }
    String answer =
        step.run(null, new IntentMessage(message.key(), message.operation(), message.arguments()));
    call(Protocol.Command.XACK, STREAM, stream.group(), id);
    return answer;
  }

  @Override
  public Workers startWorkers(int count, Duration lease, Function<String, Progress> progress) {
    List<RedisWorker<Report>> workers = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      String name = "worker-" + i;
      workers.add(
          RedisWorker.builder(stream, once, Report.class, EFFECT)
              .consumer(name)
              .batchSize(4)
              .block(Duration.ofMillis(200))
              .claimIdle(lease)
              .claimInterval(Duration.ofMillis(200))
              .reconnectBackoff(Duration.ofMillis(50), Duration.ofSeconds(1))
              .listener(new Listener(progress.apply(name)))
              .build()
              .start());
    }
    return () -> workers.forEach(RedisWorker::close);
  }

  /** Tells the demo's progress what a worker settled, with the key of each recovered entry. */
  private final class Listener implements RedisWorker.Listener {
    private final Progress progress;
    private String id = "";
    private String message = "";
    private int attempt = 1;

    Listener(Progress progress) {
      this.progress = progress;
    }

    @Override
    public void received(String id, boolean recovered) {
      this.id = id;
      this.message = STREAM + "/" + id;
      this.attempt = 1;
      if (recovered) {
        attempt = (int) deliveries(id);
        message = describeEntry(id);
      }
    }

    @Override
    public void settled(String id, RedisWorker.Result result, String detail) {
      boolean same = id.equals(this.id);
      String what = same ? message : STREAM + "/" + id;
      int n = same ? attempt : 1;
      switch (result) {
        case CREATED -> progress.finished(what, n, ReportHandler.Result.CREATED);
        case REPEATED -> progress.finished(what, n, ReportHandler.Result.REPEATED);
        case REJECTED, DEAD_LETTERED, TRIMMED ->
            progress.finished(what, n, ReportHandler.Result.REJECTED);
        case FAILED -> {} // left pending: it comes back
      }
    }
  }

  /** {@return how often an entry was delivered, or 1 if it is no longer pending} */
  private long deliveries(String id) {
    List<?> rows = list(call(Protocol.Command.XPENDING, STREAM, stream.group(), id, id, "1"));
    return rows.isEmpty() ? 1 : (Long) list(rows.get(0)).get(3);
  }

  /** {@return scope/key of an entry, or the stream and entry id if it is not a message} */
  private String describeEntry(String id) {
    List<?> entries = list(call(Protocol.Command.XRANGE, STREAM, id, id));
    if (!entries.isEmpty()) {
      try {
        return decoder.decode(bytes(list(entries.get(0)).get(1))).key().toString();
      } catch (MalformedMessageException e) {
        // not a message: named by its id below
      }
    }
    return STREAM + "/" + id;
  }

  /**
   * Counts the group's pending entries (delivered, not acknowledged) and the entries not delivered
   * yet (after the group's last delivered id).
   */
  @Override
  public long unsettled() {
    return stream.pendingCount() + undelivered();
  }

  private long undelivered() {
    String last = null;
    for (Object group : list(call(Protocol.Command.XINFO, "GROUPS", STREAM))) {
      Map<String, Object> info = fields(group);
      if (stream.group().equals(text(info.get("name")))) {
        last = text(info.get("last-delivered-id"));
      }
    }
    String from = last == null ? "-" : "(" + last;
    return list(call(
            Protocol.Command.XRANGE, STREAM, from, "+", "COUNT", Integer.toString(MAX_COUNTED)))
        .size();
  }

  /** Counts the unsettled entries and the stream's dead letters ({@code <stream>:dead}). */
  @Override
  public long pendingOutsideStore() {
    return unsettled() + (Long) call(Protocol.Command.HLEN, STREAM + ":dead");
  }

  @Override
  public IntentPublisher publisher() {
    return stream.publisher();
  }

  /** Closes the client. */
  @Override
  public void close() {
    client.close();
  }

  private Object call(Protocol.Command command, String... args) {
    try {
      return client.sendCommand(command, args);
    } catch (JedisException e) {
      throw new RedisTransportException(command + " on " + STREAM + " at " + where, e);
    }
  }

  /** {@return the first entry, {@code [id, [field, value, ...]]}, of an XREADGROUP reply} */
  private static List<Object> firstEntry(Object reply) {
    if (reply == null) {
      return null;
    }
    for (Object streamReply : list(reply)) {
      // [stream, entries] in RESP2; the client may hand it over as a key-value pair
      List<?> entries =
          list(streamReply instanceof Map.Entry<?, ?> e ? e.getValue() : list(streamReply).get(1));
      if (!entries.isEmpty()) {
        return new ArrayList<>(list(entries.get(0)));
      }
    }
    return null;
  }

  /**
   * Reads a reply of named fields, such as one group of {@code XINFO GROUPS}: a flat list of names
   * and values (RESP2), a list of key-value pairs or a map (RESP3).
   *
   * @param reply the raw reply
   * @return the values by name
   */
  public static Map<String, Object> fields(Object reply) {
    Map<String, Object> out = new java.util.HashMap<>();
    if (reply instanceof Map<?, ?> m) {
      m.forEach((k, v) -> out.put(text(k), v));
      return out;
    }
    List<?> items = list(reply);
    for (int i = 0; i < items.size(); i++) {
      if (items.get(i) instanceof Map.Entry<?, ?> e) {
        out.put(text(e.getKey()), e.getValue());
      } else if (i + 1 < items.size()) {
        out.put(text(items.get(i)), items.get(++i));
      }
    }
    return out;
  }

  private static List<?> list(Object reply) {
    return reply == null ? List.of() : (List<?>) reply;
  }

  private static List<byte[]> bytes(Object reply) {
    List<byte[]> out = new ArrayList<>();
    for (Object o : list(reply)) {
      out.add((byte[]) o);
    }
    return out;
  }

  /**
   * Reads a text reply.
   *
   * @param reply bytes in UTF-8, or any other value
   * @return the text, or the value's string form
   */
  public static String text(Object reply) {
    return reply instanceof byte[] b
        ? new String(b, StandardCharsets.UTF_8)
        : String.valueOf(reply);
  }
}
