package dev.onceonly.internal.queue;

import dev.onceonly.InvalidRequestException;
import java.util.regex.Pattern;

/** The names the job queue accepts: of a queue, and of a message's key. */
final class QueueNames {
  static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,63}");
  static final Pattern KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@/-]{0,299}");

  private QueueNames() {}

  /** Refuses a value that is null or does not match {@code pattern}. */
  static void check(String field, String value, Pattern pattern) {
    if (value == null || !pattern.matcher(value).matches()) {
      throw new InvalidRequestException(field, "must match " + pattern.pattern());
    }
  }

  /**
   * Checks the key of an operation on a row that exists (withdraw, find, requeue): only that it is
   * present, as a key no send would accept (written by another version or writer) must still be
   * reachable to be settled; a key that names no row changes nothing.
   */
  static void checkExisting(String key) {
    if (key == null) {
      throw new InvalidRequestException("key", "is required");
    }
  }
}
