package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of {@link Reconciler} publishing into the job queue (the report workshop: the
 * producer stores the intent, then publishes; reconciliation publishes again every intent without a
 * receipt). 250 intents are registered; 100 of them already have their receipt.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class ReconcilerContract extends QueueContractSupport {
  static final String REPORTS = "reports";
  static final String SCOPE = "workshop";
  static final String OPERATION = "quality_report";
  static final int BATCH = 40;

  @BeforeEach
  final void registerIntents() {
    db.inTransaction(
        c -> {
          for (int i = 0; i < 250; i++) {
            IntentKey key = key(i);
            once.intents().register(c, key, OPERATION, arguments(i));
            if (done(i)) {
              once.receipts()
                  .execute(
                      c,
                      key,
                      OPERATION,
                      arguments(i),
                      String.class,
                      tx -> insertEffect(tx, key.toString(), "producer"));
            }
          }
          return null;
        });
  }

  @Test
  void reconcilePublishesExactlyThePendingIntentsInBatches() {
    Reconciler.Report first = reconciler(once).reconcile();
    assertThat(first).isEqualTo(new Reconciler.Report(150, 150, 0, 0, 0, 4));

    reopen();
    assertThat(db.strings("SELECT message_key FROM onceonly_messages WHERE queue = ?", REPORTS))
        .containsExactlyInAnyOrderElementsOf(pendingMessageKeys());
    for (String payload :
        db.strings("SELECT payload FROM onceonly_messages WHERE queue = ?", REPORTS)) {
      IntentMessage m = IntentMessage.decode(json(payload));
      assertThat(m.operation()).isEqualTo(OPERATION);
      assertThat(once.intents().find(m.key()).orElseThrow().arguments()).isEqualTo(m.arguments());
    }

    Reconciler.Report second = reconciler(once).reconcile();
    assertThat(second).isEqualTo(new Reconciler.Report(150, 0, 150, 0, 0, 4));
    assertThat(messages(REPORTS)).isEqualTo(150);
  }

  @Test
  void twoReconcilersAtOncePublishNoIntentTwice() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (OnceOnly other = db.open(clock)) {
      CyclicBarrier gate = new CyclicBarrier(2);
      List<Future<Reconciler.Report>> passes = new ArrayList<>();
      for (OnceOnly instance : List.of(once, other)) {
        passes.add(
            pool.submit(
                () -> {
                  gate.await(30, TimeUnit.SECONDS);
                  return reconciler(instance).reconcile();
                }));
      }
      Reconciler.Report a = passes.get(0).get(60, TimeUnit.SECONDS);
      Reconciler.Report b = passes.get(1).get(60, TimeUnit.SECONDS);
      assertThat(a.published() + b.published()).isEqualTo(150);
      assertThat(a.alreadyQueued() + b.alreadyQueued()).isEqualTo(150);
      assertThat(a.conflicts() + b.conflicts()).isZero();
    } finally {
      pool.shutdownNow();
    }

    reopen();
    assertThat(messages(REPORTS)).isEqualTo(150);
    assertThat(
            db.count(
                "SELECT COUNT(*) FROM (SELECT message_key FROM onceonly_messages"
                    + " GROUP BY queue, message_key HAVING COUNT(*) > 1) d"))
        .isZero();
    assertThat(db.strings("SELECT message_key FROM onceonly_messages WHERE queue = ?", REPORTS))
        .containsExactlyInAnyOrderElementsOf(pendingMessageKeys());
  }

  @Test
  void afterAWorkerProcessedThemNothingIsPending() {
    assertThat(reconciler(once).reconcile().published()).isEqualTo(150);
    Handler report =
        job -> {
          IntentMessage m = IntentMessage.decode(job.payload());
          job.completeWith(
              tx ->
                  once.receipts()
                      .execute(
                          tx,
                          m.key(),
                          m.operation(),
                          m.arguments(),
                          String.class,
                          c -> insertEffect(c, m.key().toString(), "worker")));
        };
    Worker worker =
        Worker.builder(once.queue(), REPORTS, report)
            .threads(2)
            .idleBackoff(Duration.ofMillis(5), Duration.ofMillis(20))
            .build()
            .start();
    try {
      Eventually.await(Duration.ofSeconds(45), "queue drained", () -> messages(REPORTS) == 0);
    } finally {
      worker.close();
    }

    reopen();
    assertThat(once.intents().pending(1000)).isEmpty();
    assertThat(reconciler(once).reconcile()).isEqualTo(new Reconciler.Report(0, 0, 0, 0, 0, 0));
    assertThat(effects()).isEqualTo(250);
    assertThat(duplicatedEffects()).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM effects WHERE holder = 'worker'")).isEqualTo(150);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(250);
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_dead_letters")).isZero();
  }

  /** A poison intent waits in the dead letters for an operator; reconciling never requeues it. */
  @Test
  void aDeadLetteredIntentIsNotPublishedAgain() {
    reconciler(once).reconcile();
    String poison = SCOPE + "/" + key(3).key();
    Delivery d =
        once.queue().receive(REPORTS, 150, Duration.ofMinutes(1)).stream()
            .filter(x -> x.key().equals(poison))
            .findFirst()
            .orElseThrow();
    once.queue().deadLetter(d.lease(), "poison");

    Reconciler.Report again = reconciler(once).reconcile();

    assertThat(again.deadLettered()).isEqualTo(1);
    assertThat(again.published()).isZero();
    reopen();
    assertThat(
            db.count("SELECT COUNT(*) FROM onceonly_messages WHERE message_key = '" + poison + "'"))
        .isZero();
    assertThat(once.queue().findDeadLetter(REPORTS, poison)).isPresent();
  }

  @Test
  void aMessageWithOtherContentUnderAnIntentsKeyIsReportedAsAConflict() {
    String taken = SCOPE + "/" + key(2).key();
    once.queue().send(REPORTS, taken, Map.of("something", "else"));

    assertThat(reconciler(once).reconcile()).isEqualTo(new Reconciler.Report(150, 149, 0, 1, 0, 4));

    reopen();
    assertThat(messages(REPORTS)).isEqualTo(150);
    assertThat(
            db.strings(
                "SELECT payload FROM onceonly_messages WHERE queue = ? AND message_key = ?",
                REPORTS,
                taken))
        .containsExactly("{\"something\":\"else\"}");
  }

  // ---- helpers ------------------------------------------------------------------------------

  static Reconciler reconciler(OnceOnly instance) {
    return Reconciler.builder(
            instance.intents(), IntentMessage.publisher(instance.queue(), REPORTS))
        .batchSize(BATCH)
        .build();
  }

  static IntentKey key(int i) {
    return IntentKey.of(SCOPE, String.format(Locale.ROOT, "lote-%03d", i));
  }

  static Map<String, Object> arguments(int i) {
    return Map.of("samples", List.of(i, i + 10, i + 20));
  }

  /** Two intents in five already have their receipt: 100 of 250, spread over the key order. */
  static boolean done(int i) {
    return i % 5 < 2;
  }

  static List<String> pendingMessageKeys() {
    return IntStream.range(0, 250).filter(i -> !done(i)).mapToObj(i -> key(i).toString()).toList();
  }

  static JsonNode json(String text) {
    try {
      return new ObjectMapper().readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(text, e);
    }
  }
}
