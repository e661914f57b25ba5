package dev.onceonly.redis;

import dev.onceonly.Canonicalizer;
import dev.onceonly.Intent;
import dev.onceonly.IntentKey;
import dev.onceonly.IntentPublisher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One Redis stream and its consumer group: where a {@link RedisProducer} adds intents, where {@link
 * RedisWorker}s read them, and a {@link #publisher()} for the {@link dev.onceonly.Reconciler}.
 *
 * <p>Entries whose delivery count passed the workers' limit are dead letters: their intent keys are
 * kept in the hash {@code <stream>:dead}, so that the reconciler does not publish a poison message
 * again and again; {@link #forgetDeadLetter} lets an operator send one back. A hash field is the
 * intent key as {@link IntentKey#toString()} writes it, which no two intents share: {@code
 * scope/key} for scopes and keys of the default patterns, an escaped form otherwise. Earlier
 * versions wrote {@code scope/key} for every intent; a field they wrote for a scope holding a
 * {@code /} now reads as another intent's (scope {@code a/b} with key {@code c} wrote {@code
 * a/b/c}, now the field of scope {@code a} with key {@code b/c}): after upgrading, look for such
 * fields with {@code HGETALL} and forget them.
 *
 * <p>Thread-safe, as the client it is built on ({@link redis.clients.jedis.RedisClient} pools its
 * connections). Closing the client is the caller's business.
 */
public final class RedisStream {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:{}-]{0,127}");

  private final UnifiedJedis client;
  private final String name;
  private final String group;
  private final long maxLength;
  private final Canonicalizer canonicalizer;
  private final String deadLetters;

  private RedisStream(Builder b) {
    this.client = b.client;
    this.name = b.name;
    this.group = b.group;
    this.maxLength = b.maxLength;
    this.canonicalizer = b.canonicalizer;
    this.deadLetters = b.name + ":dead";
  }

  /**
   * Returns a builder for a stream.
   *
   * @param client the Redis client, usually a {@link redis.clients.jedis.RedisClient}
   * @param stream the stream's key: 1 to 128 of letters, digits and {@code . _ : { } -}
   * @return the builder
   * @throws IllegalArgumentException if the name is not of that form
   */
  public static Builder builder(UnifiedJedis client, String stream) {
    return new Builder(client, stream);
  }

  /** {@return the stream's key} */
  public String name() {
    return name;
  }

  /** {@return the consumer group's name} */
  public String group() {
    return group;
  }

  /** {@return the approximate largest length kept when adding, or 0 for no trimming} */
  public long maxLength() {
    return maxLength;
  }

  /** {@return the canonicalizer that writes the arguments of each entry} */
  public Canonicalizer canonicalizer() {
    return canonicalizer;
  }

  /**
   * Adds a message to the stream ({@code XADD}, trimmed with {@code MAXLEN ~} when a maximum length
   * is set). Adding the same intent twice adds two entries; the receiver recognises the second as a
   * repetition.
   *
   * @param message the message
   * @return the new entry's id, a delivery id
   * @throws RedisTransportException if Redis fails or the reply is lost; the entry may or may not
   *     have been added, and adding it again is safe
   */
  public String add(StreamMessage message) {
    Map<String, String> fields = message.fields(canonicalizer);
    List<String> args = new ArrayList<>(6 + 2 * fields.size());
    args.add(name);
    if (maxLength > 0) {
      args.add("MAXLEN");
      args.add("~");
      args.add(Long.toString(maxLength));
    }
    args.add("*");
    fields.forEach(
        (k, v) -> {
          args.add(k);
          args.add(v);
        });
    Object reply = call("XADD to " + name, Protocol.Command.XADD, args.toArray(new String[0]));
    return Replies.text(reply);
  }

  /**
   * Returns a publisher that adds a registered intent to the stream, for the {@link
   * dev.onceonly.Reconciler}: every intent without a receipt is added again, except one whose
   * message is a dead letter ({@link IntentPublisher.Publication#DEAD_LETTERED}).
   *
   * @return the publisher
   */
  public IntentPublisher publisher() {
    return this::publish;
  }

  private IntentPublisher.Publication publish(Intent intent) {
    if (isDeadLettered(intent.key())) {
      return IntentPublisher.Publication.DEAD_LETTERED;
    }
    add(StreamMessage.of(intent));
    return IntentPublisher.Publication.PUBLISHED;
  }

  /**
   * Returns how many entries the group has delivered and not acknowledged ({@code XPENDING}), or 0
   * if the group does not exist.
   *
   * @return the number of pending entries
   */
  public long pendingCount() {
    try {
      Object reply = client.sendCommand(Protocol.Command.XPENDING, name, group);
      return Replies.number(Replies.list(reply).get(0));
    } catch (JedisDataException e) {
      if (isNoGroup(e)) {
        return 0;
      }
      throw new RedisTransportException("XPENDING on " + name, e);
    } catch (JedisException e) {
      throw new RedisTransportException("XPENDING on " + name, e);
    }
  }

  /**
   * Returns whether an intent's message was dead-lettered by a worker.
   *
   * @param key the intent
   * @return whether it waits in the dead letters
   */
  public boolean isDeadLettered(IntentKey key) {
    Object reply =
        call("HEXISTS on " + deadLetters, Protocol.Command.HEXISTS, deadLetters, key.toString());
    return Replies.number(reply) == 1;
  }

  /**
   * Forgets that an intent's message was dead-lettered, so that the next reconciliation publishes
   * it again.
   *
   * @param key the intent
   * @return whether it was dead-lettered
   */
  public boolean forgetDeadLetter(IntentKey key) {
    Object reply =
        call("HDEL on " + deadLetters, Protocol.Command.HDEL, deadLetters, key.toString());
    return Replies.number(reply) == 1;
  }

  // The commands the worker needs, on raw replies: the client's typed XAUTOCLAIM drops the ids of
  // deleted entries (Redis 6.2 returns them as nil, 7.0 lists them apart), which must be acked.

  /**
   * Creates the consumer group, and the stream if missing, reading from the stream's start ({@code
   * XGROUP CREATE ... MKSTREAM}); does nothing if the group exists. Workers do it when they start;
   * call it to read or count the group before any worker ran.
   *
   * @throws RedisTransportException if Redis fails or refuses
   */
  public void ensureGroup() {
    try {
      client.sendCommand(Protocol.Command.XGROUP, "CREATE", name, group, "0", "MKSTREAM");
    } catch (JedisDataException e) {
      if (e.getMessage() == null || !e.getMessage().startsWith("BUSYGROUP")) {
        throw new RedisTransportException("XGROUP CREATE on " + name, e);
      }
    } catch (JedisException e) {
      throw new RedisTransportException("XGROUP CREATE on " + name, e);
    }
  }

  /** {@code XREADGROUP}: new entries ({@code ">"}) or this consumer's pending ones after an id. */
  List<Replies.Entry> read(String consumer, int count, long blockMillis, String after) {
    List<String> args = new ArrayList<>(List.of("GROUP", group, consumer));
    args.addAll(List.of("COUNT", Integer.toString(count)));
    if (blockMillis > 0) {
      args.addAll(List.of("BLOCK", Long.toString(blockMillis)));
    }
    args.addAll(List.of("STREAMS", name, after));
    String[] argv = args.toArray(new String[0]);
    Object reply =
        blockMillis > 0
            ? client.sendBlockingCommand(Protocol.Command.XREADGROUP, argv)
            : client.sendCommand(Protocol.Command.XREADGROUP, argv);
    return Replies.readGroup(reply);
  }

  /**
   * {@code XAUTOCLAIM ... JUSTID}: takes over entries idle for at least {@code minIdleMillis}
   * without counting a delivery (the following read of the consumer's pending entries counts it).
   */
  Replies.Claimed claim(String consumer, long minIdleMillis, String cursor, int count) {
    Object reply =
        client.sendCommand(
            Protocol.Command.XAUTOCLAIM,
            name,
            group,
            consumer,
            Long.toString(minIdleMillis),
            cursor,
            "COUNT",
            Integer.toString(count),
            "JUSTID");
    return Replies.claimed(reply);
  }

  /** {@return how often an entry was delivered, or 0 if it is not pending} */
  long deliveries(String id) {
    Object reply = client.sendCommand(Protocol.Command.XPENDING, name, group, id, id, "1");
    List<Object> rows = Replies.list(reply);
    return rows.isEmpty() ? 0 : Replies.number(Replies.list(rows.get(0)).get(3));
  }

  /** Acknowledges an entry. */
  void ack(String id) {
    client.sendCommand(Protocol.Command.XACK, name, group, id);
  }

  /** Remembers that an intent's message was dead-lettered as entry {@code id}. */
  void markDead(IntentKey key, String id) {
    client.sendCommand(Protocol.Command.HSET, deadLetters, key.toString(), id);
  }

  static boolean isNoGroup(JedisDataException e) {
    return e.getMessage() != null && e.getMessage().startsWith("NOGROUP");
  }

  private Object call(String what, Protocol.Command command, String... args) {
    try {
      return client.sendCommand(command, args);
    } catch (JedisException e) {
      throw new RedisTransportException(what, e);
    }
  }

  /** Configures a {@link RedisStream}. Not thread-safe. */
  public static final class Builder {
    private final UnifiedJedis client;
    private final String name;
    private String group = "onceonly";
    private long maxLength = 1_000_000;
    private Canonicalizer canonicalizer = Canonicalizer.defaults();

    private Builder(UnifiedJedis client, String name) {
      this.client = Objects.requireNonNull(client, "client");
      this.name = checkName(name, "stream");
    }

    /**
     * Sets the consumer group's name. Default {@code onceonly}.
     *
     * @param group 1 to 128 of letters, digits and {@code . _ : { } -}
     * @return this builder
     */
    public Builder group(String group) {
      this.group = checkName(group, "group");
      return this;
    }

    /**
     * Sets the approximate largest length of the stream, kept by {@code XADD ... MAXLEN ~}. Default
     * 1,000,000; 0 turns trimming off. An entry trimmed before it was processed is recorded as a
     * rejection by the worker that finds it pending, and its intent is published again by the
     * reconciler.
     *
     * @param entries 0 or more
     * @return this builder
     */
    public Builder maxLength(long entries) {
      if (entries < 0) {
        throw new IllegalArgumentException("maxLength must be >= 0");
      }
      this.maxLength = entries;
      return this;
    }

    /**
     * Sets the canonicalizer that writes the arguments. Default {@link Canonicalizer#defaults()}.
     *
     * @param canonicalizer the canonicalizer
     * @return this builder
     */
    public Builder canonicalizer(Canonicalizer canonicalizer) {
      this.canonicalizer = Objects.requireNonNull(canonicalizer, "canonicalizer");
      return this;
    }

    /** {@return the stream} */
    public RedisStream build() {
      return new RedisStream(this);
    }

    private static String checkName(String value, String what) {
      Objects.requireNonNull(value, what);
      if (!NAME.matcher(value).matches()) {
        throw new IllegalArgumentException(what + " must match " + NAME + ": " + value);
      }
      return value;
    }
  }
}
