package dev.onceonly.failover;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.Registration;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The producer's side of a failover run: intents registered by a producer that dies before it
 * publishes them (so only the {@link Reconciler} can get them done), one {@link Reconciler} that
 * runs a pass every 200 ms on one thread for the whole run, as the Spring schedule does, and a
 * one-thread {@link Worker} on the queue {@code intents} whose handler runs each intent's receipts
 * step in the transaction that acknowledges its message; the step's effect inserts the key into
 * {@code reconciled}. Neither the reconciler nor the worker is restarted after a failover: a pass
 * that fails is counted and the next one runs.
 */
final class FailoverReconciliation implements AutoCloseable {
  /** The scope of the producer's intents. */
  static final String SCOPE = "producer";

  private static final String QUEUE = "intents";

  /** The keys registered, each answered {@code Registered} or {@code AlreadyRegistered}. */
  final Set<String> registered = ConcurrentHashMap.newKeySet();

  /** Failed passes, by exception class. */
  final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();

  /** Passes that completed. */
  final AtomicLong passes = new AtomicLong();

  private final OnceOnly once;
  private final Reconciler reconciler;
  private final Worker worker;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "failover-reconciler");
            t.setDaemon(true);
            return t;
          });

  private FailoverReconciliation(OnceOnly once) {
    this.once = once;
    this.reconciler =
        Reconciler.builder(once.intents(), IntentMessage.publisher(once.queue(), QUEUE))
            .batchSize(50)
            .build();
    this.worker =
        Worker.builder(
                once.queue(),
                QUEUE,
                job ->
                    job.completeWith(
                        tx -> {
                          IntentMessage m = IntentMessage.decode(job.payload());
                          return once.receipts()
                              .execute(
                                  tx,
                                  m.key(),
                                  m.operation(),
                                  m.arguments(),
                                  String.class,
                                  c -> {
                                    try (PreparedStatement ps =
                                        c.prepareStatement("INSERT INTO reconciled VALUES (?)")) {
                                      ps.setString(1, m.key().key());
                                      ps.executeUpdate();
                                    }
                                    return m.key().key();
                                  });
                        }))
            .threads(1)
            .build();
  }

  /** Creates the effect's table; run once on the cluster before {@link #start}. */
  static void createTable(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("CREATE TABLE reconciled (k TEXT NOT NULL)");
    }
  }

  /** Starts the worker and the reconciler's schedule. */
  static FailoverReconciliation start(OnceOnly once) {
    FailoverReconciliation r = new FailoverReconciliation(once);
    r.worker.start();
    r.timer.scheduleWithFixedDelay(r::pass, 0, 200, TimeUnit.MILLISECONDS);
    return r;
  }

  private void pass() {
    try {
      reconciler.reconcile();
      passes.incrementAndGet();
    } catch (RuntimeException e) {
      failures
          .computeIfAbsent(e.getClass().getSimpleName(), k -> new AtomicLong())
          .incrementAndGet();
    }
  }

  /**
   * Registers {@code n} intents under keys starting with {@code prefix} and publishes none of them,
   * as a producer that dies after registering; a registration that fails (the primary is gone) is
   * made again until it is answered.
   */
  void registerUnpublished(String prefix, int n) {
    for (int i = 0; i < n; i++) {
      String key = prefix + "-" + i;
      while (true) {
        try {
          Registration r =
              once.intents().register(IntentKey.of(SCOPE, key), "report", Map.of("k", key));
          if (r instanceof Registration.Conflict) {
            throw new AssertionError("conflict on " + key);
          }
          registered.add(key);
          break;
        } catch (RuntimeException e) {
          failures
              .computeIfAbsent("register " + e.getClass().getSimpleName(), k -> new AtomicLong())
              .incrementAndGet();
        }
      }
    }
  }

  /**
   * Waits until no intent of the producer's scope on the database behind {@code c} is left without
   * a receipt, then returns what became of the registered ones.
   */
  Outcome await(Connection c) {
    Eventually.await(
        Duration.ofSeconds(120),
        "the reconciler getting every registered intent done",
        () -> {
          try {
            return FailoverTest.count(
                    c,
                    "SELECT count(*) FROM onceonly_intents i WHERE scope = '"
                        + SCOPE
                        + "' AND NOT EXISTS (SELECT 1 FROM onceonly_receipts r"
                        + " WHERE r.scope = i.scope AND r.intent_key = i.intent_key)")
                == 0;
          } catch (SQLException e) {
            return false;
          }
        });
    try {
      Set<String> intents = new HashSet<>();
      Set<String> receipts = new HashSet<>();
      Set<String> effects = new HashSet<>();
      read(c, "SELECT intent_key FROM onceonly_intents WHERE scope = '" + SCOPE + "'", intents);
      read(c, "SELECT intent_key FROM onceonly_receipts WHERE scope = '" + SCOPE + "'", receipts);
      read(c, "SELECT k FROM reconciled", effects);
      return new Outcome(
          registered.size(),
          registered.stream().filter(k -> !intents.contains(k)).count(),
          registered.stream()
              .filter(k -> intents.contains(k))
              .filter(k -> !receipts.contains(k) || !effects.contains(k))
              .count(),
          FailoverTest.count(
              c,
              "SELECT count(*) FROM (SELECT k FROM reconciled GROUP BY k HAVING count(*) > 1) d"));
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the producer's intents", e);
    }
  }

  /**
   * What became of the producer's intents.
   *
   * @param registered intents whose registration was answered
   * @param lostRegistrations answered registrations the database does not have
   * @param unreconciled registered intents without their receipt or their effect
   * @param effectsTwice keys whose effect ran more than once
   */
  record Outcome(long registered, long lostRegistrations, long unreconciled, long effectsTwice) {}

  private static void read(Connection c, String sql, Set<String> into) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        into.add(rs.getString(1));
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    worker.close();
  }
}
