package dev.onceonly.failover;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.failover.FailoverTest.Findings;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.PatroniCluster;
import dev.onceonly.testing.PatroniCluster.Node;
import dev.onceonly.testing.SharedPatroniCluster;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A network partition of the primary from etcd (its Patroni agent's connections to etcd are reset
 * and new ones refused, {@link PatroniCluster#partitionFromEtcd}) while four clients and a worker
 * write, in synchronous mode. Patroni demotes its own primary when it cannot reach etcd within
 * {@code retry_timeout} (3 s here), and the leader key expires after {@code ttl} (10 s), when a
 * standby is promoted. The test watches both nodes every 100 ms and checks that the old primary
 * stopped taking writes before the new one was promoted (no moment with two primaries), that every
 * answered step is on the new primary once, and what the old primary held when cut off that the new
 * one does not (commits it made locally and never answered). After the partition heals, the old
 * primary rejoins as a standby with the new primary's history. It runs on the test JVM's one
 * synchronous cluster ({@link SharedPatroniCluster}), in a database of its own.
 */
@Tag("failover")
@ExtendWith(SharedPatroniCluster.class)
class FailoverPartitionTest {

  @Test
  void aPrimaryCutOffFromEtcdStopsTakingWritesBeforeAStandbyIsPromoted(PatroniCluster cluster)
      throws Exception {
    String db = cluster.createDatabase("failover_partition");
    try (HikariDataSource pool = cluster.pool(db, 10)) {
      FailoverTest.createTables(cluster, db);
      try (OnceOnly once =
              OnceOnly.builder().dataSource(pool).requireSynchronousReplication(true).build();
          Worker worker = FailoverWorkload.worker(once, 2);
          FailoverReconciliation producer = FailoverReconciliation.start(once)) {
        FailoverWorkload clients = new FailoverWorkload(once, "partition");
        Node old = cluster.awaitLeader();
        clients.start(4, 1);
        producer.registerUnpublished("partition-before", 10); // on the old primary
        Eventually.await(Duration.ofSeconds(120), "50 answers", () -> clients.answered.get() >= 50);
        Watch watch = new Watch(cluster, old);
        watch.start();
        long cut = System.nanoTime();
        cluster.partitionFromEtcd(old);
        clients.markFrom(cut);
        Node[] promoted = new Node[1];
        Eventually.await(
            Duration.ofSeconds(120),
            "a standby promoted",
            () -> {
              promoted[0] = watch.promoted().orElse(null);
              return promoted[0] != null;
            });
        long firstAfterCut = clients.firstAnswerSinceMark();
        clients.markFrom(System.nanoTime()); // from now on, answers come from the new primary
        Eventually.await(
            Duration.ofSeconds(120),
            "20 answers after the promotion",
            () -> clients.answeredSinceMark() >= 20);
        producer.registerUnpublished("partition-after", 10); // on the new primary
        clients.stop();
        watch.stop();
        Set<String> onOld = effectsOn(cluster, db, old);
        Findings findings = FailoverTest.check(cluster, db, clients.told, producer);
        Set<String> onNew;
        try (Connection c = cluster.connect(db)) {
          onNew = FailoverTest.keys(c, "SELECT DISTINCT k FROM effects");
        }
        Set<String> oldOnly = new HashSet<>(onOld);
        oldOnly.removeAll(onNew);
        Set<String> answeredOldOnly = new HashSet<>(oldOnly);
        answeredOldOnly.retainAll(clients.told.keySet());
        long window = watch.lastPrimary.get() - watch.promotedAt.get();
        System.out.printf(
            "partition: %s cut off etcd, read-only after %d ms, %s promoted after %d ms,"
                + " two primaries for %d ms, first answer after the cut %d ms, after the"
                + " promotion %d ms,"
                + " effects only on the old primary %d (answered %d), %s, failures seen %s,"
                + " load average %.2f%n",
            old,
            Duration.ofNanos(watch.lastPrimary.get() - cut).toMillis(),
            promoted[0],
            Duration.ofNanos(watch.promotedAt.get() - cut).toMillis(),
            Math.max(0, Duration.ofNanos(window).toMillis()),
            firstAfterCut == 0 ? -1 : Duration.ofNanos(firstAfterCut - cut).toMillis(),
            Duration.ofNanos(clients.firstAnswerSinceMark() - watch.promotedAt.get()).toMillis(),
            oldOnly.size(),
            answeredOldOnly.size(),
            findings,
            clients.failures,
            ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        assertThat(window)
            .as("nanoseconds the old primary still took writes after the promotion")
            .isNegative();
        assertThat(answeredOldOnly).as("answered steps only the old primary has").isEmpty();
        assertThat(findings.duplicateEffects()).as("keys whose effect ran twice").isZero();
        assertThat(findings.lostAnswered()).as("answered steps whose receipt is missing").isZero();
        assertThat(findings.effectsWithoutReceipt()).as("effects without a receipt").isZero();
        assertThat(findings.lostMessages()).as("messages sent and never handled").isZero();
        assertThat(findings.duplicateHandled()).as("messages handled twice").isZero();
        assertThat(findings.intents().lostRegistrations()).as("registrations lost").isZero();
        assertThat(findings.intents().unreconciled()).as("intents never done").isZero();
        assertThat(findings.intents().effectsTwice()).as("intents done twice").isZero();

        cluster.heal(old);
        cluster.awaitHealthy();
        Eventually.await(
            Duration.ofSeconds(120),
            "the old primary holding the new primary's history",
            () -> effectsOn(cluster, db, old).equals(onNew));
      }
    }
  }

  /**
   * The effects the old primary holds while it is cut off (it runs read-only then), or nothing if
   * it does not answer within two minutes.
   */
  private static Set<String> effectsOn(PatroniCluster cluster, String db, Node node) {
    Set<String> keys = new HashSet<>();
    Eventually.await(
        Duration.ofSeconds(120),
        node + " answering reads",
        () -> {
          try (Connection c = cluster.connect(node, db)) {
            keys.clear();
            keys.addAll(FailoverTest.keys(c, "SELECT DISTINCT k FROM effects"));
            return true;
          } catch (SQLException e) {
            return false;
          }
        });
    return keys;
  }

  /**
   * Polls, every 100 ms on a thread of its own, whether the old primary still takes writes (the
   * time of the last poll that found it so, taken after its answer, so the window is never
   * under-estimated) and whether another node holds the leader lock and takes writes (the time of
   * the first poll that found it so, taken before its question).
   */
  private static final class Watch {
    final AtomicLong lastPrimary = new AtomicLong();
    final AtomicLong promotedAt = new AtomicLong();
    private final PatroniCluster cluster;
    private final Node old;
    private volatile Node promoted;
    private final CountDownLatch stopping = new CountDownLatch(1);
    private final Thread thread = new Thread(this::run, "partition-watch");

    Watch(PatroniCluster cluster, Node old) {
      this.cluster = cluster;
      this.old = old;
      thread.setDaemon(true);
    }

    void start() {
      lastPrimary.set(System.nanoTime());
      thread.start();
    }

    Optional<Node> promoted() {
      return Optional.ofNullable(promoted);
    }

    void stop() throws InterruptedException {
      stopping.countDown(); // wakes the watcher between polls
      thread.join();
    }

    private void run() {
      while (stopping.getCount() > 0) {
        if (cluster.takesWrites(old)) {
          lastPrimary.set(System.nanoTime());
        }
        if (promoted == null) {
          for (Node n : cluster.nodes()) {
            long asked = System.nanoTime();
            if (n != old && cluster.leads(n) && cluster.takesWrites(n)) {
              promotedAt.set(asked);
              promoted = n;
            }
          }
        }
        try {
          if (stopping.await(100, TimeUnit.MILLISECONDS)) {
            return; // asked to stop: no need to wait out the polling period
          }
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }
}
