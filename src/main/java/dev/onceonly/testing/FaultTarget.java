package dev.onceonly.testing;

import dev.onceonly.OnceOnly;
import javax.sql.DataSource;

/**
 * The application's code under a {@link FaultRun}: a public class with a public no-argument
 * constructor, instantiated in each child JVM, whose {@link #run} does the application's work for
 * one key on the store it is given, the way the application does it in production (a receipts step,
 * a queue send and its handler, its own tables).
 *
 * <p>The run kills child JVMs at many points inside {@code run}: before and after each statement
 * and commit on the store's connection and on the connections of the data source {@link
 * #prepare(OnceOnly, DataSource)} hands over, and at each {@link FaultPoints#reached}. It calls it
 * again for every key whose call did not return, as a client retries a request that got no answer,
 * then counts the effects per key in the application's tables with the run's effects query.
 */
public interface FaultTarget {
  /**
   * Creates what the target needs, such as its tables; runs in every child JVM before any key, so
   * it must be idempotent ({@code CREATE TABLE IF NOT EXISTS}). Nothing here is killed.
   *
   * @param once the store, on the run's SQLite file or server
   * @throws Exception if the target cannot be set up; the run stops
   */
  default void prepare(OnceOnly once) throws Exception {}

  /**
   * Creates what the target needs, as {@link #prepare(OnceOnly)}, and takes the application's data
   * source: connections on the run's SQLite file or server whose statements and commits the run may
   * kill the process before and after ({@code application: after INSERT INTO charges}), as it does
   * the store's. A target that makes its effect through its own connections, as most applications
   * do, keeps this data source in a field and uses it in {@link #run}; an effect made through a
   * connection the run did not hand out is never killed after. Nothing here is killed. The default
   * calls {@link #prepare(OnceOnly)}.
   *
   * @param once the store, on the run's SQLite file or server
   * @param dataSource the application's connections, on the same database
   * @throws Exception if the target cannot be set up; the run stops
   */
  default void prepare(OnceOnly once, DataSource dataSource) throws Exception {
    prepare(once);
  }

  /**
   * Does the application's work for one key, and returns when it is done: when it would answer its
   * caller.
   *
   * @param once the store, on the run's SQLite file or server
   * @param key the key, such as {@code k-0007}; the same key comes again after a crash
   * @throws Exception if the work fails; the key is tried again later
   */
  void run(OnceOnly once, String key) throws Exception;
}
