package dev.onceonly.reliability;

import dev.onceonly.OnceOnly;
import dev.onceonly.Reconciler;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.testing.ChildJvm;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Kills a {@link CrashWorkloadMain} process with SIGKILL, again and again on the same store, and
 * checks the store after every kill.
 *
 * <p>Each iteration starts one child that reconciles, produces {@code intentsPerChild} new intents
 * and works the queue, and kills it at a kill point chosen from the seed, without sleeping: either
 * the child parks every thread at its {@code n}-th progress point and is killed there (a known
 * place: after a registration, after a publication, inside an effect with its row written and
 * nothing committed, just after a commit), or it runs on and is killed the moment its {@code n}-th
 * progress line arrives (wherever its threads are then, commits included).
 *
 * <p>After each kill, on a fresh connection and after a reconcile pass of its own: the database
 * reports no integrity problem; no intent has more than one effect row; every effect row has its
 * receipt and every receipt its effect row; every intent without a receipt has a message in the
 * queue (none lost, none dead-lettered). At the end a last child runs without a kill until nothing
 * is pending, and then every intent has exactly one receipt and one effect, and the queue is empty.
 *
 * <p>Each child's clock runs {@code iteration × 10 s} ahead, so that the 5-second leases of the
 * killed children have run out for the next one without anybody waiting. Every process, the parent
 * included, opens the target with such an explicit clock, also on PostgreSQL, where it replaces the
 * server's clock the library would otherwise use (see {@link PostgresCrashTarget}).
 */
public final class CrashHarness {
  private static final Duration STARTUP = Duration.ofSeconds(60);
  private static final long OFFSET_STEP_MS = 10_000;

  private final CrashTarget target;
  private final Settings settings;

  /**
   * What to run.
   *
   * @param iterations how many children to kill
   * @param seed the seed of the kill points
   * @param intentsPerChild how many new intents each child produces
   * @param logDir where the children's stdout and stderr go
   */
  public record Settings(int iterations, long seed, int intentsPerChild, Path logDir) {}

  /** What a run did: one line per kill, and the final counts. */
  public record Report(
      String target, long seed, List<String> kills, long intents, long millis, int parked) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%s: %d kills (%d parked at a chosen point, %d while running), seed %d, %d intents,"
              + " each with one receipt and one effect, nothing lost, in %d ms",
          target,
          kills.size(),
          parked,
          kills.size() - parked,
          seed,
          intents,
          millis);
    }
  }

  public CrashHarness(CrashTarget target, Settings settings) {
    this.target = target;
    this.settings = settings;
  }

  /**
   * Runs every iteration and the final drain.
   *
   * @return the report
   * @throws AssertionError at the first violation, naming the seed and the iteration
   */
  public Report run() throws SQLException {
    long start = System.nanoTime();
    SplittableRandom random = new SplittableRandom(settings.seed());
    target.open(Clock.systemUTC()).close(); // creates the schema before the first count
    CrashWorkloadMain.createEffectTable(target);
    List<String> kills = new ArrayList<>();
    int parked = 0;
    for (int i = 0; i < settings.iterations(); i++) {
      boolean park = random.nextBoolean();
      // a reconcile point, then two points per new intent and three per message worked on
      long point = 1 + random.nextInt(1 + 5 * settings.intentsPerChild());
      String where = killOne(i, point, park);
      kills.add(where);
      parked += park ? 1 : 0;
      check(i, where, false);
    }
    drain(settings.iterations());
    check(settings.iterations(), "final drain", true);
    return new Report(
        target.describe(),
        settings.seed(),
        kills,
        count("SELECT COUNT(*) FROM onceonly_intents"),
        Duration.ofNanos(System.nanoTime() - start).toMillis(),
        parked);
  }

  private String killOne(int iteration, long point, boolean park) throws SQLException {
    try (ChildJvm child = start(iteration, park ? point : 0, false)) {
      String line;
      if (park) {
        child.awaitLine("parked " + point, STARTUP);
        line = child.awaitLine("point " + point + " ", STARTUP);
      } else {
        line = child.awaitLine("point " + point + " ", STARTUP);
      }
      child.kill();
      return String.format(
          Locale.ROOT, "#%d %s at %s", iteration, park ? "parked" : "running", line);
    }
  }

  private void drain(int iteration) throws SQLException {
    try (ChildJvm child = start(iteration, 0, true)) {
      child.awaitLine("drained", STARTUP);
    }
  }

  private ChildJvm start(int iteration, long pauseAt, boolean drain) throws SQLException {
    List<String> args = new ArrayList<>(target.childArgs());
    args.add("worker=w" + iteration);
    args.add("first=" + count("SELECT COUNT(*) FROM onceonly_intents"));
    args.add("intents=" + settings.intentsPerChild());
    args.add("clockOffsetMs=" + (iteration + 1) * OFFSET_STEP_MS);
    args.add("pauseAt=" + pauseAt);
    args.add("drain=" + drain);
    return ChildJvm.start(
        "crash-" + iteration,
        settings.logDir(),
        CrashWorkloadMain.class,
        args.toArray(String[]::new));
  }

  /**
   * Checks the store after a kill (or, with {@code drained}, after the final drain), following a
   * reconcile pass of its own.
   *
   * @throws AssertionError naming the seed, the iteration and what is wrong
   */
  void check(int iteration, String where, boolean drained) throws SQLException {
    InstantSource clock =
        InstantSource.offset(Clock.systemUTC(), Duration.ofMillis(iteration * OFFSET_STEP_MS));
    try (OnceOnly once = target.open(clock)) {
      Reconciler.of(once.intents(), IntentMessage.publisher(CrashWorkloadMain.queue(once), "crash"))
          .reconcile();
    }
    String context =
        String.format(
            Locale.ROOT, "seed %d, iteration %d (%s): ", settings.seed(), iteration, where);
    try (Connection c = target.connect()) {
      expectNone(context + "integrity problems", target.integrityProblems(c));
      expectNone(
          context + "intents with more than one effect",
          strings(
              c,
              "SELECT intent_key FROM crash_effects GROUP BY scope, intent_key"
                  + " HAVING COUNT(*) > 1"));
      expectNone(
          context + "effects without a receipt",
          strings(
              c,
              "SELECT e.intent_key FROM crash_effects e LEFT JOIN onceonly_receipts r"
                  + " ON r.scope = e.scope AND r.intent_key = e.intent_key"
                  + " WHERE r.intent_key IS NULL"));
      expectNone(
          context + "receipts without an effect",
          strings(
              c,
              "SELECT r.intent_key FROM onceonly_receipts r LEFT JOIN crash_effects e"
                  + " ON e.scope = r.scope AND e.intent_key = r.intent_key"
                  + " WHERE e.intent_key IS NULL"));
      expectNone(
          context + "intents without a receipt and without a message (lost)",
          strings(
              c,
              "SELECT i.intent_key FROM onceonly_intents i"
                  + " LEFT JOIN onceonly_receipts r"
                  + " ON r.scope = i.scope AND r.intent_key = i.intent_key"
                  + " LEFT JOIN onceonly_messages m"
                  + " ON m.queue = 'crash' AND m.message_key = i.scope || '/' || i.intent_key"
                  + " WHERE r.intent_key IS NULL AND m.id IS NULL"));
      expectNone(
          context + "dead letters", strings(c, "SELECT message_key FROM onceonly_dead_letters"));
      if (drained) {
        expectNone(
            context + "intents without a receipt after the drain",
            strings(
                c,
                "SELECT i.intent_key FROM onceonly_intents i LEFT JOIN onceonly_receipts r"
                    + " ON r.scope = i.scope AND r.intent_key = i.intent_key"
                    + " WHERE r.intent_key IS NULL"));
        expectNone(
            context + "messages left after the drain",
            strings(c, "SELECT message_key FROM onceonly_messages"));
      }
    }
  }

  private static void expectNone(String what, List<String> found) {
    if (!found.isEmpty()) {
      throw new AssertionError(what + ": " + found);
    }
  }

  private long count(String sql) throws SQLException {
    try (Connection c = target.connect()) {
      return Long.parseLong(strings(c, sql).get(0));
    }
  }

  private static List<String> strings(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
