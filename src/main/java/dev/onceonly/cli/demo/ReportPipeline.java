package dev.onceonly.cli.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.Reconciler;
import dev.onceonly.Registration;
import dev.onceonly.queue.IntentMessage;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendResult;
import dev.onceonly.sql.Dialect;
import dev.onceonly.sql.SqliteUrls;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Predicate;
import org.sqlite.SQLiteConfig;

/**
 * The report workshop, end to end on the SQL queue: quality samples of each batch, a producer that
 * registers the intent to make a report and then publishes it, a receiver ({@link ReportHandler})
 * that writes one report row per intent before acknowledging, a reconciler for intents that were
 * never published, and the checks on the rows afterwards ({@link #audit}).
 *
 * <p>The pieces are plain static methods so that a test and a demo can run the same scenario.
 */
public final class ReportPipeline {
  /** The workshop: every intent of the pipeline lives in this scope. */
  public static final String SCOPE = "workshop";

  /** The queue the producer publishes to and the workers read. */
  public static final String QUEUE = "reports";

  /** How long the store waits for another process's write lock. */
  static final Duration BUSY_TIMEOUT = Duration.ofSeconds(20);

  /**
   * The business table. No unique constraint on purpose: only the receipts keep a report from being
   * written twice, and a duplicate would show as a second row.
   */
  private static final String CREATE_TABLE =
      "CREATE TABLE IF NOT EXISTS reports (job_id TEXT NOT NULL, scope TEXT NOT NULL,"
          + " sample_count INTEGER NOT NULL, minimum INTEGER NOT NULL, maximum INTEGER NOT NULL,"
          + " mean %s NOT NULL)";

  private ReportPipeline() {}

  /**
   * One batch's request for a report: its job id (the intent's key) and its samples.
   *
   * @param jobId the stable identity of the request, e.g. {@code batch-007}
   * @param samples 1 to 100 integers between 0 and 10,000
   */
  public record ReportJob(String jobId, List<Integer> samples) {
    /** Copies the samples. */
    public ReportJob {
      samples = List.copyOf(samples);
    }

    /** Returns the intent's identity: the job id in the workshop's scope. */
    public IntentKey key() {
      return IntentKey.of(SCOPE, jobId);
    }

    /** Returns the arguments, {@code {"samples": [...]}}. */
    public ObjectNode arguments() {
      return argumentsOf(samples);
    }

    /** Returns the message that carries this intent. */
    public IntentMessage message() {
      return new IntentMessage(key(), Reports.OPERATION, arguments());
    }
  }

  /**
   * Returns {@code count} jobs {@code batch-000, batch-001, ...}, each with 1 to 100 samples in 0
   * to 10,000 drawn from a {@link Random} seeded with {@code seed}: the same seed gives the same
   * jobs.
   */
  public static List<ReportJob> jobs(long seed, int count) {
    Random random = new Random(seed);
    List<ReportJob> jobs = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int n = 1 + random.nextInt(100);
      List<Integer> samples = new ArrayList<>(n);
      for (int j = 0; j < n; j++) {
        samples.add(random.nextInt(10_001));
      }
      jobs.add(new ReportJob(String.format(Locale.ROOT, "batch-%03d", i), samples));
    }
    return jobs;
  }

  /** Returns {@code {"samples": samples}}. */
  static ObjectNode argumentsOf(List<Integer> samples) {
    ObjectNode arguments = JsonNodeFactory.instance.objectNode();
    ArrayNode array = arguments.putArray("samples");
    samples.forEach(array::add);
    return arguments;
  }

  /**
   * Opens the store on a SQLite file with the workshop's schema check for {@link
   * Reports#OPERATION}, and creates the {@code reports} table if it is missing.
   *
   * @param file the database file
   * @return the open store
   */
  public static OnceOnly open(Path file) {
    OnceOnly once = builder().sqlite(file).build();
    try (Connection c = connect(file)) {
      createTable(c);
      return once;
    } catch (SQLException | RuntimeException e) {
      once.close();
      throw new IllegalStateException("cannot create the reports table in " + file, e);
    }
  }

  /**
   * Creates the {@code reports} table if it is missing, in the connection's dialect (the mean is a
   * {@code REAL} on SQLite, a {@code DOUBLE PRECISION} on PostgreSQL, whose {@code REAL} has only
   * single precision).
   *
   * @param c a connection to the store's database
   * @throws SQLException if the database refuses
   */
  public static void createTable(Connection c) throws SQLException {
    boolean real = Dialect.detect(c) == Dialect.SQLITE; // elsewhere REAL may be single precision
    try (Statement s = c.createStatement()) {
      s.execute(String.format(Locale.ROOT, CREATE_TABLE, real ? "REAL" : "DOUBLE PRECISION"));
    }
  }

  /**
   * Returns a builder for a store with the workshop's schema check for {@link Reports#OPERATION}
   * and the ticket desk's for {@link Tickets#OPERATION}.
   *
   * @return the builder; set the database before building
   */
  public static OnceOnlyBuilder builder() {
    return OnceOnly.builder()
        .busyTimeout(BUSY_TIMEOUT)
        .validator(Reports.OPERATION, Reports.VALIDATOR)
        .validator(Tickets.OPERATION, Tickets.VALIDATOR);
  }

  /** Opens a plain connection that waits for other writers like the store does. */
  static Connection connect(Path file) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout((int) BUSY_TIMEOUT.toMillis());
    return config.createConnection(SqliteUrls.jdbcUrl(file));
  }

  /**
   * What the producer did.
   *
   * @param registered intents registered now
   * @param alreadyRegistered intents found registered with the same content
   * @param conflicts jobs whose id is registered with other samples (not published)
   * @param sent messages queued now
   * @param alreadyQueued messages whose intent was still waiting in the queue
   * @param crashed intents registered but not published, as if the producer had died in between
   */
  public record Production(
      int registered,
      int alreadyRegistered,
      int conflicts,
      int sent,
      int alreadyQueued,
      List<String> crashed) {}

  /**
   * The workshop's producer: registers each job's intent first, then publishes its message; a job
   * refused by {@code crashBeforePublish} is registered but never published, as if the producer had
   * died between the two steps, so that only the reconciler can bring it back.
   *
   * @param once the store
   * @param jobs the jobs, in order
   * @param crashBeforePublish which jobs the producer "dies" on after registering them
   * @return what happened
   */
  public static Production produce(
      OnceOnly once, List<ReportJob> jobs, Predicate<ReportJob> crashBeforePublish) {
    return produce(once, jobs, crashBeforePublish, job -> publish(once.queue(), job));
  }

  /**
   * The workshop's producer over any transport: as {@link #produce(OnceOnly, List, Predicate)},
   * with {@code publisher} publishing each job's message.
   *
   * @param once the store where intents are registered
   * @param jobs the jobs, in order
   * @param crashBeforePublish which jobs the producer "dies" on after registering them
   * @param publisher publishes a job's message
   * @return what happened
   */
  public static Production produce(
      OnceOnly once,
      List<ReportJob> jobs,
      Predicate<ReportJob> crashBeforePublish,
      Function<ReportJob, SendResult> publisher) {
    int registered = 0;
    int already = 0;
    int conflicts = 0;
    int sent = 0;
    int queued = 0;
    List<String> crashed = new ArrayList<>();
    for (ReportJob job : jobs) {
      Registration r = once.intents().register(job.key(), Reports.OPERATION, job.arguments());
      if (r instanceof Registration.Conflict) {
        conflicts++; // another request owns this job id: never publish ours under it
        continue;
      }
      if (r instanceof Registration.Registered) {
        registered++;
      } else {
        already++;
      }
      if (crashBeforePublish.test(job)) {
        crashed.add(job.jobId());
        continue;
      }
      SendResult s = publisher.apply(job);
      if (s.status() == SendResult.Status.SENT) {
        sent++;
      } else if (s.status() == SendResult.Status.REPEATED) {
        queued++;
      }
    }
    return new Production(registered, already, conflicts, sent, queued, List.copyOf(crashed));
  }

  /**
   * Publishes a job's message to {@link #QUEUE}; the queue deduplicates it by {@code scope/key}
   * while it waits.
   */
  public static SendResult publish(JobQueue queue, ReportJob job) {
    return queue.send(job.message().toMessage(QUEUE));
  }

  /** Runs one reconciliation pass: publishes again every intent that has no receipt yet. */
  public static Reconciler.Report reconcile(OnceOnly once) {
    return Reconciler.of(once.intents(), IntentMessage.publisher(once.queue(), QUEUE)).reconcile();
  }

  /**
   * Messages a receiver must refuse, each under a message key of its own so that the queue does not
   * deduplicate it: {@code tampered} (the key of {@code victim} with other samples), {@code
   * bad-envelope} (not an intent message, with a 2,000-character member name and a 40 KB body, to
   * show that a rejection stays bounded), {@code bad-samples} (the key of {@code victim} with no
   * samples, against the workshop's schema) and {@code unregistered} (a well-formed job nobody
   * registered).
   *
   * @param victim a registered job whose identity the hostile messages borrow
   * @return the messages, keyed {@code <kind>/<scope>/<job id>}
   */
  public static List<Message> hostileMessages(ReportJob victim) {
    List<Integer> other = new ArrayList<>(victim.samples());
    other.set(0, other.get(0) == 0 ? 1 : 0);
    IntentMessage tampered = new IntentMessage(victim.key(), Reports.OPERATION, argumentsOf(other));
    // Large on purpose: its member name outgrows a rejection's reason, its body the excerpt.
    ObjectNode envelope = JsonNodeFactory.instance.objectNode();
    envelope.put("attachment_" + "x".repeat(2_000), "\u00f1".repeat(20_000));
    envelope.put("job_id", victim.jobId());
    envelope.set("samples", victim.arguments().get("samples"));
    ObjectNode noSamples = JsonNodeFactory.instance.objectNode();
    noSamples.putArray("samples");
    IntentMessage badSamples = new IntentMessage(victim.key(), Reports.OPERATION, noSamples);
    ReportJob stranger = new ReportJob("batch-unregistered", List.of(1, 2, 3));
    return List.of(
        Message.of(QUEUE, "tampered/" + tampered.messageKey(), tampered.toJson()),
        Message.of(QUEUE, "bad-envelope/" + victim.key(), envelope),
        Message.of(QUEUE, "bad-samples/" + badSamples.messageKey(), badSamples.toJson()),
        Message.of(QUEUE, "unregistered/" + stranger.key(), stranger.message().toJson()));
  }

  /**
   * One row of the {@code reports} table.
   *
   * @param jobId the job
   * @param scope its scope
   * @param count how many samples
   * @param minimum the smallest
   * @param maximum the largest
   * @param mean the mean
   */
  public record ReportRow(
      String jobId, String scope, int count, int minimum, int maximum, double mean) {}

  /**
   * One row of the rejections table.
   *
   * @param deliveryId the refused delivery
   * @param reason why, as stored
   * @param body the stored excerpt of the body
   * @param bodyBytes the size of the whole body in UTF-8 bytes
   */
  public record RejectionRow(String deliveryId, String reason, String body, long bodyBytes) {}

  /**
   * The state of a pipeline's database, read through a fresh JDBC connection as a person checking
   * the rows would.
   *
   * @param intents registered intents
   * @param reports every report row, ordered by job id
   * @param receipts receipts stored
   * @param rejections rejected deliveries, ordered by delivery id
   * @param queued messages of {@link #QUEUE} waiting or in flight
   * @param deadLetters dead letters of {@link #QUEUE}
   * @param pendingIntents intents without a receipt
   * @param integrity what {@code PRAGMA integrity_check} says
   */
  public record Audit(
      long intents,
      List<ReportRow> reports,
      long receipts,
      List<RejectionRow> rejections,
      long queued,
      long deadLetters,
      long pendingIntents,
      List<String> integrity) {

    /** Returns the job ids that have more than one report row. */
    public List<String> duplicatedJobs() {
      List<String> out = new ArrayList<>();
      for (int i = 1; i < reports.size(); i++) {
        String id = reports.get(i).jobId();
        if (id.equals(reports.get(i - 1).jobId()) && !out.contains(id)) {
          out.add(id);
        }
      }
      return out;
    }
  }

  /**
   * Reads the state of the pipeline's database through a new connection.
   *
   * @param file the database file; no store needs to be open on it
   * @return what it holds
   */
  public static Audit audit(Path file) {
    try (Connection c = connect(file)) {
      List<ReportRow> reports = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT job_id, scope, sample_count, minimum, maximum, mean FROM reports"
                      + " ORDER BY job_id, rowid")) {
        while (rs.next()) {
          reports.add(
              new ReportRow(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getInt(3),
                  rs.getInt(4),
                  rs.getInt(5),
                  rs.getDouble(6)));
        }
      }
      List<RejectionRow> rejections = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT delivery_id, reason, body, body_bytes FROM onceonly_rejections"
                      + " ORDER BY delivery_id")) {
        while (rs.next()) {
          rejections.add(
              new RejectionRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4)));
        }
      }
      return new Audit(
          count(c, "SELECT COUNT(*) FROM onceonly_intents"),
          List.copyOf(reports),
          count(c, "SELECT COUNT(*) FROM onceonly_receipts"),
          List.copyOf(rejections),
          count(c, "SELECT COUNT(*) FROM onceonly_messages WHERE queue = '" + QUEUE + "'"),
          count(c, "SELECT COUNT(*) FROM onceonly_dead_letters WHERE queue = '" + QUEUE + "'"),
          count(
              c,
              "SELECT COUNT(*) FROM onceonly_intents i LEFT JOIN onceonly_receipts r"
                  + " ON r.scope = i.scope AND r.intent_key = i.intent_key"
                  + " WHERE r.intent_key IS NULL"),
          strings(c, "PRAGMA integrity_check"));
    } catch (SQLException e) {
      throw new IllegalStateException("cannot audit " + file, e);
    }
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static List<String> strings(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }

  /** Returns the samples of a message's arguments, already checked by the store's validator. */
  static List<Integer> samples(JsonNode arguments) {
    List<Integer> out = new ArrayList<>();
    arguments.get("samples").forEach(x -> out.add(x.intValue()));
    return out;
  }
}
