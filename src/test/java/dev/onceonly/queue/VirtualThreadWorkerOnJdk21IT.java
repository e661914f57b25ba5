package dev.onceonly.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.PostgresContractDatabase;
import dev.onceonly.testing.VirtualThreads;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Worker of 1,000 virtual handler threads on PostgreSQL, on a JDK with virtual threads (the pom's
 * {@code jdk21-tests} profile runs it on the Temurin 25 JDK beside the build's Java 17). Each of
 * 5,000 jobs waits 20 ms as on a slow provider, then commits its row with its acknowledgement
 * ({@link Job#completeWith}) through a pool of 32 connections: every job's row is there once, each
 * written on a virtual thread, hundreds of handlers ran at once, and JFR's {@code
 * jdk.VirtualThreadPinned} event (threshold zero, with stacks) recorded no pinning with a frame of
 * {@code dev.onceonly} on its stack, but for the JDK's own waits for the initialization of one of
 * its classes by another thread (the first socket reads wait for {@code sun.nio.ch.Poller}'s),
 * which are printed. Since Java 24 a monitor no longer pins a virtual thread; on Java 21 to 23 it
 * does, which is why the Worker and the store's gauges hold locks, not monitors, where they wait.
 */
class VirtualThreadWorkerOnJdk21IT {
  private static final int JOBS = 5_000;
  private static final int THREADS = 1_000;

  @TempDir Path dir;

  @Test
  void aThousandVirtualThreadsHandleEveryJobOnceAndNothingOfTheLibraryPinsACarrier()
      throws Exception {
    assumeTrue(VirtualThreads.available(), "virtual threads need Java 21 or newer");
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    List<RecordedEvent> pinned = new ArrayList<>();
    try (PostgresContractDatabase pg = PostgresContractDatabase.durable();
        OnceOnly once = OnceOnly.builder().dataSource(pg.pool(32)).build();
        Recording recording = new Recording()) {
      once.useTransaction(
          tx ->
              tx.createStatement()
                  .execute(
                      "CREATE TABLE vt_runs (run_key VARCHAR(100) NOT NULL,"
                          + " virtual_thread BOOLEAN NOT NULL)"));
      List<Message> batch = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        batch.add(Message.of("vt", "job-" + i, i));
        if (batch.size() == 500) {
          once.queue().sendAll(batch);
          batch.clear();
        }
      }
      recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
      recording.start();
      Handler handler =
          job -> {
            int now = running.incrementAndGet();
            mostAtOnce.accumulateAndGet(now, Math::max);
            try {
              Thread.sleep(20); // a slow provider: the thread waits, its carrier does not
            } finally {
              running.decrementAndGet();
            }
            boolean virtual = VirtualThreads.isVirtual(Thread.currentThread());
            job.completeWith(
                tx -> {
                  try (PreparedStatement ps =
                      tx.prepareStatement(
                          "INSERT INTO vt_runs (run_key, virtual_thread) VALUES (?, ?)")) {
                    ps.setString(1, job.lease().key());
                    ps.setBoolean(2, virtual);
                    return ps.executeUpdate();
                  }
                });
          };
      try (Worker worker =
          Worker.builder(once.queue(), "vt", handler)
              .threads(THREADS)
              .threadFactory(VirtualThreads.factory("vt-handler-"))
              .lease(Duration.ofMinutes(2))
              .build()
              .start()) {
        Eventually.await(
            Duration.ofMinutes(3),
            "every job's row written",
            () -> pg.count("SELECT COUNT(*) FROM vt_runs") == JOBS);
      }
      recording.stop();
      Path jfr = dir.resolve("pinning.jfr");
      recording.dump(jfr);
      for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
        if (e.getEventType().getName().equals("jdk.VirtualThreadPinned")) {
          pinned.add(e);
        }
      }
      System.out.printf(
          "virtual threads: %d jobs on %d threads, at most %d handlers at once, %d pinned events"
              + " in all%n",
          JOBS, THREADS, mostAtOnce.get(), pinned.size());
      assertThat(pg.count("SELECT COUNT(DISTINCT run_key) FROM vt_runs")).isEqualTo(JOBS);
      assertThat(pg.count("SELECT COUNT(*) FROM vt_runs")).as("no job twice").isEqualTo(JOBS);
      assertThat(pg.count("SELECT COUNT(*) FROM vt_runs WHERE NOT virtual_thread"))
          .as("jobs handled on a platform thread")
          .isZero();
      assertThat(pg.count("SELECT COUNT(*) FROM onceonly_messages")).isZero();
      assertThat(mostAtOnce.get()).as("handlers waiting at once").isGreaterThan(100);
      List<String> ours = new ArrayList<>();
      for (RecordedEvent e : pinned) {
        if (e.getStackTrace() == null
            || e.getStackTrace().getFrames().stream()
                .noneMatch(VirtualThreadWorkerOnJdk21IT::ours)) {
          continue;
        }
        if (jdkInitialization(e)) {
          // The JDK's own one-time start, such as the first socket read waiting for another
          // thread's initialization of sun.nio.ch.Poller: the library is only its caller.
          System.out.println("ignored, the JDK's own initialization: " + stack(e));
          continue;
        }
        ours.add(stack(e));
      }
      assertThat(ours).as("pinned carriers with the library on the stack").isEmpty();
    }
  }

  /**
   * Whether the pinning was the JDK's own: a wait for the initialization of a class not of the
   * library, or a critical section of the JDK's.
   */
  private static boolean jdkInitialization(RecordedEvent e) {
    if (!e.hasField("pinnedReason")) {
      return false;
    }
    String reason = String.valueOf((Object) e.getValue("pinnedReason"));
    if (reason.contains("Freeze or preempt failed (2)")) {
      // HotSpot's freeze_pinned_cs: the continuation was pinned by a critical section, which only
      // the JDK's own code enters (jdk.internal.vm.Continuation.pin); the library has none
      return true;
    }
    String prefix = "initialization of ";
    int at = reason.indexOf(prefix);
    return at >= 0 && !reason.substring(at + prefix.length()).startsWith("dev.onceonly.");
  }

  private static boolean ours(RecordedFrame f) {
    return f.getMethod() != null
        && f.getMethod().getType().getName().startsWith("dev.onceonly.")
        && !f.getMethod().getType().getName().startsWith("dev.onceonly.queue.VirtualThreadWorker");
  }

  private static String stack(RecordedEvent e) {
    StringBuilder b = new StringBuilder("pinned for " + e.getDuration() + " (");
    for (jdk.jfr.ValueDescriptor field : e.getFields()) {
      if (!field.getName().equals("stackTrace")) {
        b.append(field.getName())
            .append('=')
            .append((Object) e.getValue(field.getName()))
            .append(' ');
      }
    }
    b.append("):");
    for (RecordedFrame f : e.getStackTrace().getFrames()) {
      b.append("\n  at ")
          .append(f.getMethod().getType().getName())
          .append('.')
          .append(f.getMethod().getName());
    }
    return b.toString();
  }
}
