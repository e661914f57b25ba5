package dev.onceonly.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@link FaultRun} found, counted from the application's own tables after every key was
 * answered.
 *
 * @param kills child JVMs killed with SIGKILL
 * @param faults child JVMs given a fault other than a kill ({@link Fault}) or a failover, which
 *     went on
 * @param keys keys the run did
 * @param children child JVMs started, the killed ones included
 * @param duplicates effects beyond the first, summed over the keys: 0 when every effect happened at
 *     most once
 * @param duplicatedKeys the keys whose effect happened more than once
 * @param lostKeys the keys whose call returned (or was retried until it did) but whose effect is
 *     not in the tables
 * @param killPoints how many faults were given at each point, by where and what the child was about
 *     to do or had just done, such as {@code application: after INSERT INTO charges} or {@code
 *     store: after COMMIT of INSERT INTO onceonly_receipts} for kills, and prefixed with the fault
 *     for the others, such as {@code lost commit answer: application: before COMMIT of INSERT INTO
 *     charges}, and {@code failover: } for a failover ({@link FaultRun#failover}), named by the
 *     point where the child that was given it waited while the cluster failed over
 * @param reachedClasses the classes of points the children reached, such as {@code application:
 *     after commit} or {@code connection reset: store: before statement} (see {@link #covered})
 * @param database where the run worked: the SQLite file's path, or the JDBC URL without its
 *     parameters and user information
 * @param file the SQLite file the run worked on, kept for a closer look; null on a server
 * @param elapsed how long the run took
 */
public record FaultReport(
    int kills,
    int faults,
    int keys,
    int children,
    long duplicates,
    List<String> duplicatedKeys,
    List<String> lostKeys,
    Map<String, Integer> killPoints,
    List<String> reachedClasses,
    String database,
    Path file,
    Duration elapsed) {
  /**
   * Checks and copies the fields.
   *
   * @param kills child JVMs killed with SIGKILL
   * @param faults child JVMs given a fault other than a kill, which went on
   * @param keys keys the run did
   * @param children child JVMs started, the killed ones included
   * @param duplicates effects beyond the first, summed over the keys: 0 when every effect happened
   *     at most once
   * @param duplicatedKeys the keys whose effect happened more than once
   * @param lostKeys the keys whose call returned (or was retried until it did) but whose effect is
   *     not in the tables
   * @param killPoints how many faults were given at each point, by where and what the child was
   *     about to do or had just done, such as {@code application: after INSERT INTO charges}
   * @param reachedClasses the classes of points the children reached
   * @param database where the run worked: the SQLite file, or the JDBC URL without its parameters
   * @param file the SQLite file the run worked on, kept for a closer look; null on a server
   * @param elapsed how long the run took
   */
  public FaultReport {
    duplicatedKeys = List.copyOf(duplicatedKeys);
    lostKeys = List.copyOf(lostKeys);
    killPoints = Collections.unmodifiableMap(new TreeMap<>(killPoints));
    reachedClasses = List.copyOf(reachedClasses);
    Objects.requireNonNull(database, "database");
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

  /**
   * {@return whether a child was killed (or given the class's fault) in every class of points the
   * children reached: before and after statements and commits, on the store's connection and on the
   * application's, at each point the application named, and each fault's classes}
   */
  public boolean covered() {
    return missedClasses().isEmpty();
  }

  /**
   * {@return the classes of points the children reached where none was killed: what happens after a
   * crash there was not tried}
   */
  public List<String> missedClasses() {
    return reachedClasses.stream()
        .filter(c -> killPoints.keySet().stream().noneMatch(p -> FaultChild.classOf(p).equals(c)))
        .toList();
  }

  /**
   * {@return whether a child was killed at a point of the application's own: a statement or commit
   * on a connection of the data source the run hands the target, a {@link FaultPoints#reached}, or
   * a statement on the store's connection that names a table of the application's (its effect made
   * in the store's transaction, {@code store: after INSERT INTO charges}). When none was, the run
   * tried nothing around the application's effect, and a duplicate of it is never caught: {@link
   * #ok()} is false}
   */
  public boolean killedInTheApplication() {
    return killPoints.keySet().stream()
        .filter(p -> !p.startsWith(FAILOVER))
        .map(p -> p.substring(Fault.of(p).prefix().length()))
        .anyMatch(p -> !p.startsWith(STORE) || namesApplicationTable(p));
  }

  /** {@return whether a point's statement writes or reads a table not of the store's own} */
  static boolean namesApplicationTable(String point) {
    Matcher m = TABLE.matcher(point);
    while (m.find()) {
      if (!m.group(1).toLowerCase(Locale.ROOT).startsWith(STORE_TABLES)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@return whether nothing was duplicated or lost, every class of points was killed in, and a
   * kill landed at a point of the application's own ({@link #killedInTheApplication})}
   */
  public boolean ok() {
    return clean() && covered() && killedInTheApplication();
  }

  /** The tables a statement names, after the words that precede a table in SQL. */
  private static final Pattern TABLE =
      Pattern.compile("(?i)\\b(?:INTO|UPDATE|FROM|TABLE)\\s+[\"`]?([A-Za-z_][A-Za-z0-9_.]*)");

  /** How the store's tables begin under the table prefix a run uses. */
  private static final String STORE_TABLES = "onceonly_";

  /** How the names of the points on the store's own connection begin. */
  static final String STORE = "store: ";

  /** How the names of the points where a failover was given begin ({@link FaultRun#failover}). */
  static final String FAILOVER = "failover: ";

  /** {@return a few lines for people: the counts, the first keys found, the kill points} */
  public String summary() {
    StringBuilder b = new StringBuilder();
    b.append("fault run: kills=")
        .append(kills)
        .append(faults > 0 ? " faults=" + faults : "")
        .append(" keys=")
        .append(keys)
        .append(" children=")
        .append(children)
        .append(" duplicates=")
        .append(duplicates)
        .append(" lost=")
        .append(lost())
        .append(ok() ? " OK" : clean() ? " INCOMPLETE" : " FAILED")
        .append('\n');
    if (!duplicatedKeys.isEmpty()) {
      b.append("duplicated: ").append(first(duplicatedKeys)).append('\n');
    }
    if (!lostKeys.isEmpty()) {
      b.append("lost: ").append(first(lostKeys)).append('\n');
    }
    b.append("classes of points reached: ")
        .append(reachedClasses.size())
        .append(", killed in: ")
        .append(reachedClasses.size() - missedClasses().size())
        .append('\n');
    killPoints.forEach(
        (p, n) ->
            b.append(Fault.of(p) == Fault.KILL && !p.startsWith(FAILOVER) ? "  killed " : "  ")
                .append(n)
                .append("x ")
                .append(p)
                .append('\n'));
    missedClasses().forEach(p -> b.append("  never killed in: ").append(p).append('\n'));
    if (!killedInTheApplication()) {
      b.append(
          "note: INCOMPLETE, no kill at a point of the application's own, so a duplicated effect"
              + " would not be caught: an effect made through a connection the run did not hand"
              + " out (a pool of the target's own) is never killed around. Make it through the"
              + " data source FaultTarget.prepare(once, dataSource) hands over, or in the"
              + " receipt's transaction, or name points with FaultPoints.reached(name)\n");
    }
    return b.toString();
  }

  private static String first(List<String> keys) {
    return String.join(", ", keys.subList(0, Math.min(10, keys.size())))
        + (keys.size() > 10 ? ", ..." : "");
  }
}
