package dev.onceonly.cli.demo;

import dev.onceonly.Effect;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.Reconciler;
import dev.onceonly.cli.demo.ReportPipeline.Production;
import dev.onceonly.cli.demo.ReportPipeline.ReportJob;
import dev.onceonly.cli.demo.Reports.Report;
import dev.onceonly.cli.demo.Tickets.Ticket;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendResult;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * The demo a newcomer runs first: the report workshop and the ticket desk on one store.
 *
 * <p>The report workshop: the producer registers {@link Settings#jobs()} quality-sample report jobs
 * and publishes them on the SQL job queue, but "dies" between the two steps for one job in twenty;
 * it publishes one job twice (a lost reply); a tampered message and three other hostile ones are
 * injected. One worker takes the first message, inserts its report row and crashes before the
 * commit: the row is rolled back and the lease abandoned. Several workers then process the queue;
 * once the crashed worker's lease runs out, one of them gets its message again and makes the
 * report. A job is published again after it was done (answered from its receipt), and the
 * reconciler publishes the jobs the producer never did.
 *
 * <p>The ticket desk: a ticket is created, its response is lost, the client retries with the same
 * key (the stored ticket comes back) and then sends other content under the same key (a conflict,
 * nothing written).
 *
 * <p>The {@link Summary} is computed by counting rows in the database afterwards. Run again on the
 * same database, every report and the ticket are answered as {@code Repeated}.
 */
public final class Demo {
  /** The scope of the ticket desk: the signed-in user. */
  public static final String TICKET_SCOPE = "u-1";

  /** The ticket desk's request key, the same on every retry. */
  public static final IntentKey TICKET_KEY = IntentKey.of(TICKET_SCOPE, "op-17");

  private static final Duration DRAIN = Duration.ofSeconds(120);

  private final OnceOnly once;
  private final Transport transport;
  private final Rows rows;
  private final PrintStream out;
  private final Settings settings;
  private final AtomicLong created = new AtomicLong();
  private final AtomicLong repeated = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();
  private final AtomicLong settled = new AtomicLong();

  /**
   * How the demo runs.
   *
   * @param jobs how many report jobs, 50 to 999
   * @param seed the random seed of the jobs' samples
   * @param workers how many workers (each with two threads on the SQL queue)
   * @param lease the workers' lease
   * @param crashLease the lease the crashing worker abandons; its message comes back after it
   */
  public record Settings(int jobs, long seed, int workers, Duration lease, Duration crashLease) {
    /** Checks the values. */
    public Settings {
      if (jobs < 50 || jobs > 999) {
        throw new IllegalArgumentException("jobs must be between 50 and 999");
      }
      if (workers < 1) {
        throw new IllegalArgumentException("workers must be > 0");
      }
      Objects.requireNonNull(lease, "lease");
      Objects.requireNonNull(crashLease, "crashLease");
    }

    /**
     * Returns the defaults: 200 jobs, random seed 20,000, three workers, leases of 2 s and 0.5 s.
     */
    public static Settings defaults() {
      return new Settings(200, 20_000L, 3, Duration.ofSeconds(2), Duration.ofMillis(500));
    }
  }

  /** Opens plain connections to the store's database, for the business tables and the counts. */
  @FunctionalInterface
  public interface Rows {
    /**
     * Opens a connection; the caller closes it.
     *
     * @return a new connection
     * @throws SQLException if the database cannot be reached
     */
    Connection open() throws SQLException;
  }

  private Demo(OnceOnly once, Transport transport, Rows rows, PrintStream out, Settings settings) {
    this.once = Objects.requireNonNull(once, "once");
    this.transport = Objects.requireNonNull(transport, "transport");
    this.rows = Objects.requireNonNull(rows, "rows");
    this.out = Objects.requireNonNull(out, "out");
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /**
   * Runs the demo on the store's SQL job queue and counts the rows afterwards.
   *
   * @param once a store opened with {@link ReportPipeline#builder()} and the default table prefix
   * @param rows connections to the same database
   * @param out where progress goes
   * @param settings how to run
   * @return the summary, counted from the rows
   * @throws SQLException if the database fails
   */
  public static Summary run(OnceOnly once, Rows rows, PrintStream out, Settings settings)
      throws SQLException {
    return run(once, new SqlQueueTransport(once), rows, out, settings);
  }

  /**
   * Runs the demo over a transport and counts the rows afterwards.
   *
   * @param once a store opened with {@link ReportPipeline#builder()} and the default table prefix
   * @param transport what carries the jobs to the workers
   * @param rows connections to the same database
   * @param out where progress goes
   * @param settings how to run
   * @return the summary, counted from the rows
   * @throws SQLException if the database fails
   */
  public static Summary run(
      OnceOnly once, Transport transport, Rows rows, PrintStream out, Settings settings)
      throws SQLException {
    return new Demo(once, transport, rows, out, settings).run();
  }

  private Summary run() throws SQLException {
    long rejectionsBefore;
    try (Connection c = rows.open()) {
      ReportPipeline.createTable(c);
      Tickets.createTable(c);
      rejectionsBefore = Summary.count(c, "SELECT COUNT(*) FROM onceonly_rejections");
    }
    workshop();
    tickets();
    try (Connection c = rows.open()) {
      long rejectionsNow = Summary.count(c, "SELECT COUNT(*) FROM onceonly_rejections");
      return Summary.count(
          c,
          repeated.get(),
          conflicts.get(),
          rejectionsNow - rejectionsBefore,
          transport.pendingOutsideStore());
    }
  }

  private void workshop() throws SQLException {
    List<ReportJob> jobs = ReportPipeline.jobs(settings.seed(), settings.jobs());
    Set<String> unpublished =
        jobs.stream()
            .map(ReportJob::jobId)
            .filter(id -> Integer.parseInt(id.substring(id.lastIndexOf('-') + 1)) % 20 == 7)
            .collect(Collectors.toSet());
    say(
        "the report workshop: %d quality-sample report jobs over %s",
        jobs.size(), transport.describe());
    Production p =
        ReportPipeline.produce(
            once, jobs, j -> unpublished.contains(j.jobId()), transport::publish);
    say(
        "  producer: %d intents registered now, %d already registered; %d messages sent;"
            + " died before publishing %d",
        p.registered(), p.alreadyRegistered(), p.sent(), p.crashed().size());
    SendResult again = transport.publish(jobs.get(0));
    say("  duplicate publish of %s (its reply was lost): %s", jobs.get(0).jobId(), again.status());
    List<Message> hostile = ReportPipeline.hostileMessages(jobs.get(13));
    transport.inject(hostile);
    say(
        "  injected %d hostile messages: a tampered %s, a bad envelope, bad samples, an"
            + " unregistered job",
        hostile.size(), jobs.get(13).jobId());
    crashOne();

    Transport.Workers workers =
        transport.startWorkers(settings.workers(), settings.lease(), this::listener);
    try {
      say("  %d workers started, lease %s", settings.workers(), settings.lease());
      drain("the first pass");
      ReportJob done = jobs.get(42);
      transport.publish(done);
      say("  %s published again after it was done", done.jobId());
      drain("the late duplicate");
      Reconciler.Report r = Reconciler.of(once.intents(), transport.publisher()).reconcile();
      say(
          "  reconciler: %d intents without a receipt, %d published again",
          r.examined(), r.published());
      drain("the reconciled intents");
    } finally {
      workers.close();
    }
  }

  /**
   * A worker takes one message, inserts its report row and crashes before the commit: the
   * transaction rolls back and the delivery is left to come back.
   */
  private void crashOne() throws SQLException {
    try {
      String answer = transport.crashOne(settings.crashLease(), this::crashingStep);
      if (!answer.isEmpty()) {
        repeated.incrementAndGet(); // the effect did not run: the receipt answered, no crash
        say("  worker-crash: %s", answer);
      }
    } catch (Crash e) {
      say(
          "  worker-crash: took %s, inserted its report row and died before the commit:"
              + " rolled back, delivery abandoned (back after %s)",
          e.key, settings.crashLease());
    }
  }

  private String crashingStep(Connection tx, IntentMessage m) throws SQLException {
    Effect<Report, SQLException> effect =
        c -> {
          ReportHandler.insertReport(c, m.key(), m.arguments());
          throw new Crash(m.key().key());
        };
    Outcome<Report> o =
        tx == null
            ? once.receipts().execute(m.key(), m.operation(), m.arguments(), Report.class, effect)
            : once.receipts()
                .execute(tx, m.key(), m.operation(), m.arguments(), Report.class, effect);
    return "took " + m.key().key() + ", already done: " + name(o) + ", acknowledged";
  }

  /** The simulated death of a worker inside its effect. */
  private static final class Crash extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String key;

    Crash(String key) {
      super("worker crashed inside its effect", null, false, false);
      this.key = key;
    }
  }

  private Transport.Progress listener(String name) {
    return (message, attempt, result) -> {
      settled.incrementAndGet();
      switch (result) {
        case CREATED -> created.incrementAndGet();
        case REPEATED -> repeated.incrementAndGet();
        case REJECTED -> rejected.incrementAndGet();
        case LEASE_LOST -> {}
      }
      if (attempt > 1) {
        say(
            "  %s: %s came back (attempt %d) and is %s",
            name, message, attempt, result.name().toLowerCase(Locale.ROOT));
      }
    };
  }

  private void drain(String what) {
    long deadline = System.nanoTime() + DRAIN.toNanos();
    long lastShown = -1;
    while (transport.unsettled() > 0) {
      long n = settled.get();
      if (n != lastShown) {
        say(
            "    ... %d settled: %d created, %d repeated, %d rejected",
            n, created.get(), repeated.get(), rejected.get());
        lastShown = n;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the queue did not drain after " + what);
      }
      pause();
    }
    say(
        "    ... %d settled: %d created, %d repeated, %d rejected",
        settled.get(), created.get(), repeated.get(), rejected.get());
  }

  private static void pause() {
    try {
      Thread.sleep(250); // progress display only; the workers do not wait on it
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * The ticket desk: a ticket whose response is lost, the retry, then other content under its key.
   */
  private void tickets() throws SQLException {
    say("the ticket desk: key %s", TICKET_KEY);
    Map<String, String> subject = Map.of("subject", "Investigate the API failure");
    Outcome<Ticket> first = ticket(subject);
    say("  request: %s ticket %d; the response is lost", name(first), id(first));
    Outcome<Ticket> retry = ticket(subject);
    say("  retry with the same key: %s ticket %d, nothing ran again", name(retry), id(retry));
    Outcome<Ticket> other = ticket(Map.of("subject", "Another problem"));
    say("  same key, other subject: %s, nothing written", name(other));
  }

  private Outcome<Ticket> ticket(Map<String, String> arguments) throws SQLException {
    Outcome<Ticket> o =
        once.receipts()
            .execute(
                TICKET_KEY,
                Tickets.OPERATION,
                arguments,
                Ticket.class,
                Tickets.create(TICKET_SCOPE, arguments.get("subject")));
    if (o instanceof Outcome.Repeated) {
      repeated.incrementAndGet();
    } else if (o instanceof Outcome.Conflict) {
      conflicts.incrementAndGet();
    }
    return o;
  }

  private static String name(Outcome<?> o) {
    return o.getClass().getSimpleName();
  }

  private static long id(Outcome<Ticket> o) {
    return o.resultOrThrow().ticketId();
  }

  private void say(String format, Object... args) {
    out.println(String.format(Locale.ROOT, format, args));
    out.flush();
  }
}
