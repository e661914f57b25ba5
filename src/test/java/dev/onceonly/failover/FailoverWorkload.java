package dev.onceonly.failover;

import dev.onceonly.ConnectionLostException;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.StoreException;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.Worker;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * The clients of a Jepsen-style run: application threads that each run receipts steps on keys of
 * their own, one after another, and record what every step was told. A step's effect inserts a row
 * into {@code effects} and sends a message to the queue {@code jobs} in the same transaction. A
 * step that fails is called again with the same key until it is answered, as a caller with an
 * {@code Idempotency-Key} does; every failure is counted by its type.
 */
final class FailoverWorkload {
  /** The scope of every key. */
  static final String SCOPE = "jepsen";

  /** What a caller was told, by key: {@code Created} or {@code Repeated}. */
  final Map<String, String> told = new ConcurrentHashMap<>();

  /** Failures seen, by exception class. */
  final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();

  final AtomicLong answered = new AtomicLong();
  private final AtomicLong answeredAfter = new AtomicLong();
  private final AtomicLong firstAnswerAfter = new AtomicLong();
  private volatile long since = Long.MAX_VALUE;
  private final OnceOnly once;
  private final String prefix;
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopping;
  private final BiConsumer<String, String> record;

  FailoverWorkload(OnceOnly once, String prefix) {
    this(once, prefix, (key, answer) -> {});
  }

  /** As above, and hands each answer to {@code record} as soon as the caller is told it. */
  FailoverWorkload(OnceOnly once, String prefix, BiConsumer<String, String> record) {
    this.once = once;
    this.prefix = prefix;
    this.record = record;
  }

  /**
   * Returns a started {@link Worker} on the queue {@code jobs} that records each message it handles
   * as a row of {@code handled}, in the transaction that acknowledges it.
   */
  static Worker worker(OnceOnly once, int threads) {
    return Worker.builder(
            once.queue(),
            "jobs",
            job ->
                job.completeWith(
                    tx -> {
                      try (PreparedStatement ps =
                          tx.prepareStatement("INSERT INTO handled VALUES (?)")) {
                        ps.setString(1, job.delivery().key());
                        ps.executeUpdate();
                      }
                      return null;
                    }))
        .threads(threads)
        .build()
        .start();
  }

  /** Starts {@code n} client threads for {@code round}, on keys no earlier round used. */
  void start(int n, int round) {
    stopping = false;
    for (int i = 0; i < n; i++) {
      String name = prefix + "-r" + round + "-t" + i;
      Thread t = new Thread(() -> run(name), name);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  /** From now on, counts answers and keeps the time of the first one. */
  void markFrom(long nanoTime) {
    answeredAfter.set(0);
    firstAnswerAfter.set(0);
    since = nanoTime;
  }

  /** {@return answers since {@link #markFrom}} */
  long answeredSinceMark() {
    return answeredAfter.get();
  }

  /** {@return the nanoTime of the first answer since {@link #markFrom}, or 0} */
  long firstAnswerSinceMark() {
    return firstAnswerAfter.get();
  }

  /** Lets every thread finish the key it is on (answered), then joins them. */
  void stop() throws InterruptedException {
    stopping = true;
    for (Thread t : threads) {
      t.join(Duration.ofMinutes(3).toMillis());
      if (t.isAlive()) {
        throw new AssertionError(t.getName() + " did not get its last step answered");
      }
    }
    threads.clear();
  }

  private void run(String name) {
    for (long seq = 0; !stopping; seq++) {
      String key = name + "-" + seq;
      Outcome<String> outcome = untilAnswered(key);
      String answer = outcome instanceof Outcome.Created ? "Created" : "Repeated";
      told.put(key, answer);
      record.accept(key, answer);
      answered.incrementAndGet();
      long now = System.nanoTime();
      if (now > since) {
        answeredAfter.incrementAndGet();
        firstAnswerAfter.compareAndSet(0, now);
      }
    }
  }

  private Outcome<String> untilAnswered(String key) {
    while (true) {
      try {
        return step(key);
      } catch (ConnectionLostException e) {
        count(
            e.commitUnknown()
                ? "ConnectionLostException(commitUnknown)"
                : "ConnectionLostException");
      } catch (StoreException e) {
        count("StoreException " + e.sqlState());
      } catch (RuntimeException | java.sql.SQLException e) {
        count(e.getClass().getName()); // not typed by the library: the run reports it
      }
    }
  }

  private void count(String failure) {
    failures.computeIfAbsent(failure, f -> new AtomicLong()).incrementAndGet();
  }

  private Outcome<String> step(String key) throws java.sql.SQLException {
    return once.receipts()
        .execute(
            IntentKey.of(SCOPE, key),
            "charge",
            Map.of("key", key),
            String.class,
            tx -> {
              try (PreparedStatement ps = tx.prepareStatement("INSERT INTO effects VALUES (?)")) {
                ps.setString(1, key);
                ps.executeUpdate();
              }
              once.queue().send(tx, Message.of("jobs", key, Map.of("key", key))).orThrow();
              return key;
            });
  }
}
