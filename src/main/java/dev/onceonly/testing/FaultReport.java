package dev.onceonly.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a {@link FaultRun} found, counted from the application's own tables after every key was
 * answered.
 *
 * @param kills child JVMs killed with SIGKILL
 * @param keys keys the run did
 * @param children child JVMs started, the killed ones included
 * @param duplicates effects beyond the first, summed over the keys: 0 when every effect happened at
 *     most once
 * @param duplicatedKeys the keys whose effect happened more than once
 * @param lostKeys the keys whose call returned (or was retried until it did) but whose effect is
 *     not in the tables
 * @param killPoints how many kills happened at each point, by what the child was about to do or had
 *     just done, such as {@code before INSERT INTO charges} or {@code after COMMIT}
 * @param file the SQLite file the run worked on, kept for a closer look
 * @param elapsed how long the run took
 */
public record FaultReport(
    int kills,
    int keys,
    int children,
    long duplicates,
    List<String> duplicatedKeys,
    List<String> lostKeys,
    Map<String, Integer> killPoints,
    Path file,
    Duration elapsed) {
  /**
   * Checks and copies the fields.
   *
   * @param kills child JVMs killed with SIGKILL
   * @param keys keys the run did
   * @param children child JVMs started, the killed ones included
   * @param duplicates effects beyond the first, summed over the keys: 0 when every effect happened
   *     at most once
   * @param duplicatedKeys the keys whose effect happened more than once
   * @param lostKeys the keys whose call returned (or was retried until it did) but whose effect is
   *     not in the tables
   * @param killPoints how many kills happened at each point, by what the child was about to do or
   *     had just done, such as {@code before INSERT INTO charges} or {@code after COMMIT}
   * @param file the SQLite file the run worked on, kept for a closer look
   * @param elapsed how long the run took
   */
  public FaultReport {
    duplicatedKeys = List.copyOf(duplicatedKeys);
    lostKeys = List.copyOf(lostKeys);
    killPoints = Collections.unmodifiableMap(new TreeMap<>(killPoints));
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(elapsed, "elapsed");
  }

  /** {@return how many keys lost their effect} */
  public long lost() {
    return lostKeys.size();
  }

  /** {@return whether no effect was duplicated and none lost} */
  public boolean clean() {
    return duplicates == 0 && lostKeys.isEmpty();
  }

  /** {@return a few lines for people: the counts, the first keys found, the kill points} */
  public String summary() {
    StringBuilder b = new StringBuilder();
    b.append("fault run: kills=")
        .append(kills)
        .append(" keys=")
        .append(keys)
        .append(" children=")
        .append(children)
        .append(" duplicates=")
        .append(duplicates)
        .append(" lost=")
        .append(lost())
        .append(clean() ? " OK" : " FAILED")
        .append('\n');
    if (!duplicatedKeys.isEmpty()) {
      b.append("duplicated: ").append(first(duplicatedKeys)).append('\n');
    }
    if (!lostKeys.isEmpty()) {
      b.append("lost: ").append(first(lostKeys)).append('\n');
    }
    killPoints.forEach(
        (p, n) -> b.append("  killed ").append(n).append("x ").append(p).append('\n'));
    return b.toString();
  }

  private static String first(List<String> keys) {
    return String.join(", ", keys.subList(0, Math.min(10, keys.size())))
        + (keys.size() > 10 ? ", ..." : "");
  }
}
