package dev.onceonly.redis;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.Bounds;
import dev.onceonly.CanonicalizationException;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A consumer of a stream's group: reads entries with blocking {@code XREADGROUP}, applies each
 * through the {@link dev.onceonly.ReceiptStore} and acknowledges it ({@code XACK}) only after its
 * receipt committed.
 *
 * <p>For each entry: {@link Outcome.Created} and {@link Outcome.Repeated} are acknowledged. An
 * entry that is not a message of this transport ({@link MessageDecoder}), whose intent is not
 * registered, whose body does not match its registered intent ({@link Outcome.Conflict}), whose key
 * has expired ({@link Outcome.Expired}) or whose arguments the store refuses ({@link
 * InvalidRequestException}, {@link CanonicalizationException}, also when the effect throws them) is
 * kept in the {@link dev.onceonly.RejectionStore} first and acknowledged after. Any other failure
 * of the effect or of the database leaves the entry pending, to be tried again by the next
 * recovery.
 *
 * <p>Recovery, at start, after a reconnection and every {@link Builder#claimInterval}: entries
 * pending for longer than {@link Builder#claimIdle} on any consumer (one that died, or this one
 * after a failure) are taken over with {@code XAUTOCLAIM}, and this consumer's pending entries are
 * read again. An entry delivered more than {@link Builder#maxDeliveries} times is a dead letter: it
 * is kept as a rejection, its intent key is remembered (see {@link RedisStream#isDeadLettered}) and
 * it is acknowledged, instead of looping forever. An entry deleted from the stream (trimmed) while
 * still pending is kept as a rejection and acknowledged; the reconciler publishes its intent again.
 *
 * <p>When Redis cannot be reached, the worker waits with exponential backoff and full jitter and
 * starts again with a recovery, so nothing is lost: an entry is acknowledged only after its receipt
 * committed, and one whose acknowledgement was lost comes back and is answered as {@link
 * Outcome.Repeated}. One thread per worker; run several workers (consumers) for parallelism.
 *
 * @param <T> the effect's result type, stored in the receipt
 */
public final class RedisWorker<T> implements AutoCloseable {
  private static final AtomicInteger COUNTER = new AtomicInteger();
  private static final System.Logger LOG = System.getLogger(RedisWorker.class.getName());

  /**
   * The effect of one message, run inside the receipt step's transaction on SQLite or PostgreSQL.
   * See {@link dev.onceonly.Effect} for what it may and may not do. Throwing {@link
   * InvalidRequestException} refuses the message (it is kept as a rejection); any other exception
   * leaves it pending for a later attempt.
   *
   * @param <T> the result type
   */
  @FunctionalInterface
  public interface StreamEffect<T> {
    /**
     * Performs the effect.
     *
     * @param transaction the step's connection, inside its open transaction
     * @param message the message being applied
     * @return the result to store in the receipt
     * @throws Exception to roll the step back and leave the entry pending
     */
    T apply(Connection transaction, StreamMessage message) throws Exception;
  }

  /** What became of one entry, as told to a {@link Listener}. */
  public enum Result {
    /** The effect ran now, its receipt committed, and the entry was acknowledged. */
    CREATED,
    /** The receipt answered (the effect had run before) and the entry was acknowledged. */
    REPEATED,
    /** The entry was kept as a rejection and acknowledged. */
    REJECTED,
    /** The entry was delivered too often: kept as a rejection, its intent remembered, acked. */
    DEAD_LETTERED,
    /** The entry was trimmed from the stream while pending: kept as a rejection and acked. */
    TRIMMED,
    /** The effect or the database failed: the entry stays pending for a later recovery. */
    FAILED
  }

  /**
   * Watches a worker's progress, for tests, demos and metrics. Called on the worker's thread,
   * outside any transaction; a listener that throws makes the worker back off as after a failure of
   * Redis.
   */
  public interface Listener {
    /**
     * An entry was read and is about to be settled.
     *
     * @param id the entry's id
     * @param recovered whether it was delivered before (read again by a recovery)
     */
    default void received(String id, boolean recovered) {}

    /**
     * An entry was settled (or, for {@link Result#FAILED}, left pending).
     *
     * @param id the entry's id
     * @param result what became of it
     * @param detail the stored result, the reason of a rejection or the failure
     */
    default void settled(String id, Result result, String detail) {}

    /**
     * Redis failed; the worker backs off and reconnects.
     *
     * @param e the failure
     */
    default void disconnected(RuntimeException e) {}
  }

  private final RedisStream stream;
  private final OnceOnly once;
  private final Class<T> resultType;
  private final StreamEffect<T> effect;
  private final MessageDecoder decoder;
  private final String consumer;
  private final int batchSize;
  private final long blockMillis;
  private final long claimIdleMillis;
  private final long claimIntervalNanos;
  private final int maxDeliveries;
  private final long minBackoffNanos;
  private final long maxBackoffNanos;
  private final boolean requireRegistered;
  private final Listener listener;
  private final Thread thread;
  private volatile boolean running;
  // Read and written on the worker's thread only: whether the last read, or the last settling
  // step, failed, so that a run of failures is logged once and not at every retry.
  private boolean disconnected;
  private boolean failing;

  private RedisWorker(Builder<T> b) {
    this.stream = b.stream;
    this.once = b.once;
    this.resultType = b.resultType;
    this.effect = b.effect;
    this.decoder = MessageDecoder.of(b.stream.canonicalizer());
    this.consumer = b.consumer;
    this.batchSize = b.batchSize;
    this.blockMillis = Math.max(1, b.block.toMillis());
    this.claimIdleMillis = b.claimIdle.toMillis();
    this.claimIntervalNanos = b.claimInterval.toNanos();
    this.maxDeliveries = b.maxDeliveries;
    this.minBackoffNanos = b.minBackoff.toNanos();
    this.maxBackoffNanos = b.maxBackoff.toNanos();
    this.requireRegistered = b.requireRegistered;
    this.listener = b.listener;
    this.thread = new Thread(this::run, "onceonly-redis-" + consumer);
    this.thread.setDaemon(true);
  }

  /**
   * Returns a builder.
   *
   * @param stream the stream and group to read
   * @param once the store whose receipts, intents and rejections the worker uses
   * @param resultType the effect's result type, for reading a stored result back
   * @param effect the effect of one message
   * @param <T> the result type
   * @return the builder
   */
  public static <T> Builder<T> builder(
      RedisStream stream, OnceOnly once, Class<T> resultType, StreamEffect<T> effect) {
    return new Builder<>(stream, once, resultType, effect);
  }

  /** {@return this consumer's name in the group} */
  public String consumer() {
    return consumer;
  }

  /**
   * Starts the worker's thread.
   *
   * @return this worker
   * @throws IllegalStateException if it was started before
   */
  public synchronized RedisWorker<T> start() {
    if (thread.getState() != Thread.State.NEW) {
      throw new IllegalStateException("already started");
    }
    running = true;
    thread.start();
    return this;
  }

  /**
   * Stops the worker after the entry in hand, and waits for its thread (at most the blocking read's
   * time and the entry's). Entries read but not settled stay pending, for a recovery.
   */
  @Override
  public void close() {
    running = false;
    LockSupport.unpark(thread);
    if (thread.getState() != Thread.State.NEW) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Stops without waiting, leaving what was read unacknowledged: a consumer that died. */
  void abandon() {
    running = false;
  }

  private void run() {
    long backoff = minBackoffNanos;
    boolean recoverNow = true;
    long nextClaim = System.nanoTime();
    while (running) {
      try {
        if (recoverNow || System.nanoTime() - nextClaim >= 0) {
          stream.ensureGroup();
          recover();
          recoverNow = false;
          nextClaim = System.nanoTime() + claimIntervalNanos;
        }
        for (Replies.Entry entry : stream.read(consumer, batchSize, blockMillis, ">")) {
          if (!settle(entry, false)) {
            return;
          }
        }
        backoff = minBackoffNanos;
        if (disconnected) {
          disconnected = false;
          LOG.log(
              System.Logger.Level.INFO,
              "worker {0} reads stream {1} again",
              consumer,
              stream.name());
        }
      } catch (RuntimeException e) {
        // Redis unreachable or restarting (LOADING), the group gone (NOGROUP), a reply not
        // understood, the database failing a rejection: start again from a recovery, which reads
        // this consumer's pending entries, so the worker's thread never dies of it.
        listener.disconnected(e);
        if (!disconnected) {
          disconnected = true;
          LOG.log(
              System.Logger.Level.WARNING,
              "worker "
                  + consumer
                  + " cannot read stream "
                  + stream.name()
                  + "; it backs off and recovers its pending entries until it reads again",
              e);
        }
        recoverNow = true;
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(minBackoffNanos, backoff + 1));
        backoff = Math.min(backoff * 2, maxBackoffNanos);
      }
    }
  }

  /** Claims idle entries of any consumer, then settles every entry pending on this one. */
  private void recover() {
    String cursor = "0-0";
    do {
      Replies.Claimed claimed = stream.claim(consumer, claimIdleMillis, cursor, batchSize);
      for (String id : claimed.deleted()) {
        trimmed(id);
      }
      cursor = claimed.cursor();
    } while (running && !cursor.equals("0-0"));
    String after = "0";
    while (running) {
      List<Replies.Entry> pending = stream.read(consumer, batchSize, 0, after);
      if (pending.isEmpty()) {
        return;
      }
      for (Replies.Entry entry : pending) {
        if (!settle(entry, true)) {
          return;
        }
        after = entry.id();
      }
    }
  }

  /** Settles one entry; returns false if the worker was stopped before it. */
  private boolean settle(Replies.Entry entry, boolean recovered) {
    listener.received(entry.id(), recovered);
    if (!running) {
      return false;
    }
    if (entry.fields() == null) {
      trimmed(entry.id());
      return true;
    }
    long deliveries = 1;
    if (recovered) {
      deliveries = stream.deliveries(entry.id());
      if (deliveries > maxDeliveries) {
        deadLetter(entry, deliveries);
        return true;
      }
    }
    Outcome<T> outcome;
    String refusal;
    Events events = once.events();
    long started = events.enabled() ? System.nanoTime() : 0;
    boolean failed = true;
    String traceparent = null;
    try {
      StreamMessage message = decoder.decode(entry.fields());
      traceparent = message.traceparent();
      outcome = apply(message);
      refusal = outcome == null ? "no registered intent for " + message.key() : refusal(outcome);
      failed = false;
    } catch (MalformedMessageException | InvalidRequestException | CanonicalizationException e) {
      outcome = null;
      refusal = e.getMessage();
    } catch (Exception e) {
      // The step rolled back: leave the entry pending; a later recovery tries it again.
      warnFailed(entry.id(), e);
      listener.settled(entry.id(), Result.FAILED, e.toString());
      return true;
    } finally {
      if (started != 0) {
        events.publish(
            new OnceOnlyEvent.JobHandled(
                stream.name(),
                (int) Math.min(Integer.MAX_VALUE, deliveries),
                Duration.ofNanos(System.nanoTime() - started),
                failed,
                traceparent));
      }
    }
    failing = false;
    if (refusal != null) {
      reject(entry, refusal);
    } else {
      stream.ack(entry.id());
      listener.settled(
          entry.id(),
          outcome instanceof Outcome.Created ? Result.CREATED : Result.REPEATED,
          String.valueOf(outcome.resultOrThrow()));
    }
    return true;
  }

  /** Runs the receipt step, or returns null if the intent must be registered and is not. */
  private Outcome<T> apply(StreamMessage message) throws Exception {
    if (requireRegistered && once.intents().find(message.key()).isEmpty()) {
      return null;
    }
    return once.receipts()
        .execute(
            message.key(),
            message.operation(),
            message.arguments(),
            resultType,
            c -> effect.apply(c, message));
  }

  /**
   * Logs a failed step at WARNING when it starts a run of failures (a database down fails every
   * entry), and at DEBUG until an entry settles again: nothing else records it, since the entry
   * only stays pending.
   */
  private void warnFailed(String id, Exception e) {
    System.Logger.Level level = failing ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING;
    failing = true;
    LOG.log(
        level,
        "entry "
            + id
            + " of stream "
            + stream.name()
            + " failed; it stays pending for a recovery (further failures at DEBUG until an entry"
            + " settles)",
        e);
  }

  private void reject(Replies.Entry entry, String reason) {
    rejectAndAck(entry.id(), body(entry.fields()), reason, Result.REJECTED);
  }

  private void trimmed(String id) {
    rejectAndAck(
        id,
        "",
        "the entry was deleted from the stream (trimmed) while pending, before it was processed",
        Result.TRIMMED);
  }

  private void deadLetter(Replies.Entry entry, long deliveries) {
    try {
      stream.markDead(decoder.decode(entry.fields()).key(), entry.id());
    } catch (MalformedMessageException e) {
      // no intent to remember; the rejection below keeps the entry
    }
    rejectAndAck(
        entry.id(),
        body(entry.fields()),
        "dead letter: delivered " + deliveries + " times, more than the limit of " + maxDeliveries,
        Result.DEAD_LETTERED);
  }

  /** Keeps the rejection before the acknowledgement, so a crash in between loses nothing. */
  private void rejectAndAck(String id, String body, String reason, Result result) {
    once.rejections().record(stream.name() + "/" + id, body, reason);
    stream.ack(id);
    listener.settled(id, result, reason);
  }

  /** {@return why an outcome is refused, or null for a created or repeated one} */
  private static String refusal(Outcome<?> o) {
    if (o instanceof Outcome.Created || o instanceof Outcome.Repeated) {
      return null;
    }
    if (o instanceof Outcome.Conflict<?> c) {
      return "the message does not match the registered intent "
          + c.key()
          + ": registered "
          + c.stored()
          + ", received "
          + c.requested();
    }
    return "the receipt of " + o.key() + " has expired; the intent may not run again";
  }

  /** The entry as a JSON object of its fields, for a rejection (the store bounds the excerpt). */
  private static String body(List<byte[]> fields) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    for (int i = 0; i + 1 < fields.size(); i += 2) {
      node.put(text(fields.get(i)), text(fields.get(i + 1)));
    }
    if (fields.size() % 2 != 0) {
      node.put("", text(fields.get(fields.size() - 1)));
    }
    return node.toString();
  }

  private static String text(byte[] bytes) {
    return bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * Configures a {@link RedisWorker}. Not thread-safe.
   *
   * @param <T> the effect's result type
   */
  public static final class Builder<T> {
    private final RedisStream stream;
    private final OnceOnly once;
    private final Class<T> resultType;
    private final StreamEffect<T> effect;
    private String consumer =
        "consumer-" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
    private int batchSize = 16;
    private Duration block = Duration.ofSeconds(2);
    private Duration claimIdle = Duration.ofMinutes(1);
    private Duration claimInterval = Duration.ofSeconds(30);
    private int maxDeliveries = 5;
    private Duration minBackoff = Duration.ofMillis(100);
    private Duration maxBackoff = Duration.ofSeconds(10);
    private boolean requireRegistered = true;
    private Listener listener = new Listener() {};

    private Builder(
        RedisStream stream, OnceOnly once, Class<T> resultType, StreamEffect<T> effect) {
      this.stream = Objects.requireNonNull(stream, "stream");
      this.once = Objects.requireNonNull(once, "once");
      this.resultType = Objects.requireNonNull(resultType, "resultType");
      this.effect = Objects.requireNonNull(effect, "effect");
    }

    /**
     * Sets this consumer's name, unique in the group. Default {@code consumer-<pid>-<n>}. A worker
     * that restarts under the same name finds its pending entries at once.
     *
     * @param name 1 to 128 characters
     * @return this builder
     */
    public Builder<T> consumer(String name) {
      Objects.requireNonNull(name, "name");
      if (name.isEmpty() || name.length() > 128) {
        throw new IllegalArgumentException("consumer must be 1 to 128 characters");
      }
      this.consumer = name;
      return this;
    }

    /**
     * Sets how many entries one read or claim takes. Default 16.
     *
     * @param entries from 1 to 10,000
     * @return this builder
     */
    public Builder<T> batchSize(int entries) {
      if (entries <= 0 || entries > 10_000) {
        throw new IllegalArgumentException("batchSize must be between 1 and 10000");
      }
      this.batchSize = entries;
      return this;
    }

    /**
     * Sets how long one {@code XREADGROUP} blocks waiting for entries; also how long {@link
     * RedisWorker#close()} may wait. Default 2 seconds.
     *
     * @param block a positive duration of at least a millisecond and at most 100 years
     * @return this builder
     */
    public Builder<T> block(Duration block) {
      this.block = Bounds.positive(block, "block");
      return this;
    }

    /**
     * Sets how long an entry must have been pending, unacknowledged, before another consumer takes
     * it over with {@code XAUTOCLAIM}. Longer than the slowest effect. Default 1 minute.
     *
     * @param idle a positive duration, at most 100 years
     * @return this builder
     */
    public Builder<T> claimIdle(Duration idle) {
      this.claimIdle = Bounds.positive(idle, "claimIdle");
      return this;
    }

    /**
     * Sets how often the worker looks for idle entries to take over. Default 30 seconds.
     *
     * @param interval a positive duration, at most 100 years
     * @return this builder
     */
    public Builder<T> claimInterval(Duration interval) {
      this.claimInterval = Bounds.positive(interval, "claimInterval");
      return this;
    }

    /**
     * Sets the most deliveries of one entry (its first, and each recovery) before it is a dead
     * letter. Default 5.
     *
     * @param deliveries at least 1
     * @return this builder
     */
    public Builder<T> maxDeliveries(int deliveries) {
      if (deliveries <= 0) {
        throw new IllegalArgumentException("maxDeliveries must be > 0");
      }
      this.maxDeliveries = deliveries;
      return this;
    }

    /**
     * Sets the wait after Redis failed: a random time between {@code min} and a bound that starts
     * at {@code min} and doubles at each failure in a row, up to {@code max}. Default 100
     * milliseconds to 10 seconds.
     *
     * @param min a positive duration, at most 100 years
     * @param max a duration not shorter than {@code min}
     * @return this builder
     */
    public Builder<T> reconnectBackoff(Duration min, Duration max) {
      Bounds.positive(min, "min");
      Bounds.positive(max, "max");
      if (max.compareTo(min) < 0) {
        throw new IllegalArgumentException("max must be >= min");
      }
      this.minBackoff = min;
      this.maxBackoff = max;
      return this;
    }

    /**
     * Sets whether a message whose intent is not registered is refused (kept as a rejection) rather
     * than applied. Default {@code true}: the producer registers every intent before publishing it.
     *
     * @param require whether to refuse unregistered intents
     * @return this builder
     */
    public Builder<T> requireRegisteredIntent(boolean require) {
      this.requireRegistered = require;
      return this;
    }

    /**
     * Sets who is told about each entry read and settled. Default: nobody.
     *
     * @param listener the listener, called on the worker's thread
     * @return this builder
     */
    public Builder<T> listener(Listener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** {@return the worker, not started} */
    public RedisWorker<T> build() {
      return new RedisWorker<>(this);
    }
  }
}
