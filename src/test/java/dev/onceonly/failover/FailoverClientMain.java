package dev.onceonly.failover;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.OnceOnly;
import dev.onceonly.StoreException;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.PatroniCluster;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * The second application JVM of {@link FailoverTest}: two client threads of a {@link
 * FailoverWorkload} and a one-thread {@link Worker} on the queue {@code jobs}, against the
 * cluster's multi-host URL, through the failover. Every answer is appended to a file as {@code key
 * answer} and flushed before the next step, so the parent reads what each caller was told even if
 * this JVM dies. Prints {@code started} after its first answer; on the line {@code stop} (or the
 * end of its input) lets each thread finish its step, closes the worker and prints {@code stopped
 * <answers>}.
 *
 * <p>Arguments: the JDBC URL, the answers file, the keys' prefix, the round.
 */
public final class FailoverClientMain {
  private FailoverClientMain() {}

  /**
   * Runs the clients until told to stop.
   *
   * @param args the JDBC URL, the answers file, the keys' prefix, the round
   * @throws Exception if the run fails; the parent sees the exit status and stderr
   */
  public static void main(String[] args) throws Exception {
    String url = args[0];
    Path file = Path.of(args[1]);
    String prefix = args[2];
    int round = Integer.parseInt(args[3]);
    try (HikariDataSource pool = PatroniCluster.pool(url, "child-" + prefix, 6);
        BufferedWriter answers =
            Files.newBufferedWriter(
                file,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        OnceOnly once = open(pool);
        Worker worker = FailoverWorkload.worker(once, 1)) {
      CountDownLatch first = new CountDownLatch(1);
      FailoverWorkload clients =
          new FailoverWorkload(
              once,
              prefix,
              (key, answer) -> {
                append(answers, key, answer);
                first.countDown();
              });
      clients.start(2, round);
      first.await();
      System.out.println("started");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null && !line.equals("stop"); ) {
        line = in.readLine();
      }
      clients.stop();
      System.out.println("stopped " + clients.answered.get());
    }
  }

  /**
   * Opens the store, again and again for up to two minutes while the pool gets no connection (on a
   * loaded machine a first login can take longer than the pool's 5 s), as an application's start
   * waits for its database.
   */
  private static OnceOnly open(HikariDataSource pool) {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (true) {
      try {
        return OnceOnly.builder().dataSource(pool).build();
      } catch (StoreException e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        System.err.println("opening the store again: " + e.getMessage());
      }
    }
  }

  private static void append(BufferedWriter answers, String key, String answer) {
    synchronized (answers) {
      try {
        answers.write(key + " " + answer + "\n");
        answers.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e); // the thread dies and the parent finds its key missing
      }
    }
  }
}
