package dev.onceonly.bench;

import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The job JobRunr runs for {@link WorkerBenchMain}: JobRunr stores a job as a call to a static (or
 * bean) method with its arguments, so the run's pool and sink are static here, set by {@link
 * PeerTargets.JobRunrTarget} for one run at a time.
 */
public final class JobRunrWork {
  static volatile DataSource pool;
  static volatile WorkerBenchTarget.Sink sink;

  private JobRunrWork() {}

  /**
   * Writes the job's row in {@code done}.
   *
   * @param key the job's key
   * @throws SQLException if the row cannot be written (JobRunr then retries the job)
   */
  public static void run(String key) throws SQLException {
    WorkerBenchTarget.Sink s = sink;
    s.started(key);
    try {
      WorkerBenchStore.insertDone(pool, key);
      s.done();
    } catch (SQLException | RuntimeException e) {
      s.failed(e);
      throw e;
    }
  }
}
