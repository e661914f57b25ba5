package dev.onceonly.queue;

/**
 * Logs a {@link Worker}'s failed polls of one queue: the first of a run of failures at {@code
 * WARNING}, and again at the 10th, 100th, 1,000th... failure in a row (with the count) or when the
 * failure changes; the others at {@code DEBUG}. A store that is down fails every poll of every idle
 * backoff, and a log line per poll would bury everything else. Used by the claiming thread only.
 */
final class PollLog {
  private static final System.Logger LOG = System.getLogger(Worker.class.getName());

  private final String queueName;

  /** Failed polls in a row, and the last one's text. */
  private long pollFailures;

  private String lastPollFailure;

  PollLog(String queueName) {
    this.queueName = queueName;
  }

  /** Logs a failed poll. */
  void failed(RuntimeException e) {
    String text = e.getClass().getName() + ": " + e.getMessage();
    boolean changed = !text.equals(lastPollFailure);
    pollFailures = changed ? 1 : pollFailures + 1;
    lastPollFailure = text;
    boolean loud = changed || isPowerOfTen(pollFailures);
    LOG.log(
        loud ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG,
        "receive from "
            + queueName
            + " failed"
            + (pollFailures == 1
                ? " (the same failure again is logged at DEBUG, at WARNING every tenfold)"
                : " " + pollFailures + " times in a row"),
        e);
  }

  /** Says once that polling works again after failures. */
  void works() {
    if (pollFailures > 0) {
      LOG.log(
          System.Logger.Level.INFO,
          "receive from " + queueName + " works again after " + pollFailures + " failure(s)");
      pollFailures = 0;
      lastPollFailure = null;
    }
  }

  private static boolean isPowerOfTen(long n) {
    while (n >= 10 && n % 10 == 0) {
      n /= 10;
    }
    return n == 1;
  }
}
