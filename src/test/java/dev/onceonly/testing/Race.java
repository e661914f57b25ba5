package dev.onceonly.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** Runs tasks on many threads released together by a start gate, and collects their results. */
public final class Race {
  private Race() {}

  /**
   * Runs {@code task(i)} for i in 0..threads-1, each on its own thread, all released at once.
   *
   * @return the results, in task order
   * @throws ExecutionException wrapping the first task failure
   */
  public static <T> List<T> run(int threads, IntFunction<Callable<T>> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CyclicBarrier gate = new CyclicBarrier(threads);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        Callable<T> body = task.apply(i);
        futures.add(
            pool.submit(
                () -> {
                  gate.await(30, TimeUnit.SECONDS);
                  return body.call();
                }));
      }
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
