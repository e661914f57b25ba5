package dev.onceonly.testing;

import dev.onceonly.OnceOnly;

/**
 * The application's code under a {@link FaultRun}: a public class with a public no-argument
 * constructor, instantiated in each child JVM, whose {@link #run} does the application's work for
 * one key on the store it is given, the way the application does it in production (a receipts step,
 * a queue send and its handler, its own tables).
 *
 * <p>The run kills child JVMs at many points inside {@code run} and calls it again for every key
 * whose call did not return, as a client retries a request that got no answer, then counts the
 * effects per key in the application's tables with the run's effects query.
 */
public interface FaultTarget {
  /**
   * Creates what the target needs, such as its tables; runs in every child JVM before any key, so
   * it must be idempotent ({@code CREATE TABLE IF NOT EXISTS}). Nothing here is killed.
   *
   * @param once the store, on the run's SQLite file
   * @throws Exception if the target cannot be set up; the run stops
   */
  default void prepare(OnceOnly once) throws Exception {}

  /**
   * Does the application's work for one key, and returns when it is done: when it would answer its
   * caller.
   *
   * @param once the store, on the run's SQLite file
   * @param key the key, such as {@code k-0007}; the same key comes again after a crash
   * @throws Exception if the work fails; the key is tried again later
   */
  void run(OnceOnly once, String key) throws Exception;
}
