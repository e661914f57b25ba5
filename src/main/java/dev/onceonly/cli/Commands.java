package dev.onceonly.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.onceonly.Intent;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Receipt;
import dev.onceonly.ReceiptStore;
import dev.onceonly.external.ClaimRecord;
import dev.onceonly.external.ClaimState;
import dev.onceonly.internal.db.Migrator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** The operator commands. Each works on {@code --db FILE} or {@code --jdbc-url URL}. */
final class Commands {
  private static final ObjectMapper JSON =
      new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private Commands() {}

  /** A command that only groups subcommands: alone, it prints its usage. */
  abstract static class Group implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(spec.commandLine().getOut());
    }
  }

  /** The SCOPE and KEY parameters that name one intent. */
  static final class KeyArgs {
    @Parameters(index = "0", paramLabel = "SCOPE", description = "the intent's scope")
    String scope;

    @Parameters(index = "1", paramLabel = "KEY", description = "the intent's key")
    String key;

    IntentKey key() {
      return IntentKey.of(scope, key);
    }
  }

  /** The {@code --limit} of a listing: 1 to 10,000 rows, 100 by default. */
  static final class Limit {
    @Option(
        names = "--limit",
        defaultValue = "100",
        description = "at most this many, 1 to 10,000 (default: ${DEFAULT-VALUE})")
    int limit;

    int value() {
      if (limit < 1 || limit > 10_000) {
        throw new CliException(CliException.USAGE, "--limit must be between 1 and 10,000");
      }
      return limit;
    }
  }

  /** What every operator command shares: the target, {@code --json}, and the output. */
  abstract static class Base implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Mixin Target target;

    @Option(names = "--json", description = "print JSON instead of aligned text")
    boolean json;

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    /** Prints a JSON document, or the table under its title. */
    void print(Object document, String title, Table table) {
      if (json) {
        json(document);
      } else {
        if (title != null) {
          out().println(title);
        }
        table.print(out());
      }
    }

    /** Prints a flat document: as JSON, or one aligned line a field. */
    void printFields(Map<String, Object> document) {
      Table t = new Table("field", "value");
      document.forEach(t::add);
      print(document, null, t);
    }

    void json(Object document) {
      try {
        out().println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(document));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    static CliException store(SQLException e) {
      return new CliException(CliException.STORE, Target.firstLine(e.getMessage()));
    }
  }

  @Command(
      name = "status",
      description =
          "Counts rows per table and state, the oldest pending intent's age, dead letters.")
  static final class Status extends Base {
    @Override
    public Integer call() {
      Instant now = Instant.now();
      try (Connection c = target.connectChecked()) {
        Table counts = new Table("table", "state", "count");
        String intents = target.table("intents");
        String receipts = target.table("receipts");
        long pending =
            count(
                c,
                "SELECT COUNT(*) FROM "
                    + intents
                    + " i LEFT JOIN "
                    + receipts
                    + " r ON r.scope = i.scope AND r.intent_key = i.intent_key"
                    + " WHERE r.intent_key IS NULL",
                null);
        counts.add("intents", "registered", count(c, "SELECT COUNT(*) FROM " + intents, null));
        counts.add("intents", "without receipt", pending);
        counts.add(
            "receipts",
            "result kept",
            count(
                c,
                "SELECT COUNT(*) FROM " + receipts + " WHERE result IS NOT NULL AND expires_at > ?",
                now));
        counts.add(
            "receipts",
            "result expired",
            count(
                c,
                "SELECT COUNT(*) FROM "
                    + receipts
                    + " WHERE result IS NOT NULL AND expires_at <= ?",
                now));
        counts.add(
            "receipts",
            "tombstone",
            count(c, "SELECT COUNT(*) FROM " + receipts + " WHERE result IS NULL", null));
        String messages = target.table("messages");
        String byQueue = " GROUP BY queue ORDER BY queue";
        addGroups(
            counts,
            "messages",
            ": due",
            grouped(
                c,
                "SELECT queue, COUNT(*) FROM " + messages + " WHERE deliver_at <= ?" + byQueue,
                now));
        addGroups(
            counts,
            "messages",
            ": leased or later",
            grouped(
                c,
                "SELECT queue, COUNT(*) FROM " + messages + " WHERE deliver_at > ?" + byQueue,
                now));
        long dead =
            addGroups(
                counts,
                "dead_letters",
                "",
                grouped(
                    c,
                    "SELECT queue, COUNT(*) FROM " + target.table("dead_letters") + byQueue,
                    null));
        addGroups(
            counts,
            "claims",
            "",
            grouped(
                c,
                "SELECT state, COUNT(*) FROM "
                    + target.table("claims")
                    + " GROUP BY state ORDER BY state",
                null));
        counts.add(
            "rejections",
            "kept",
            count(c, "SELECT COUNT(*) FROM " + target.table("rejections"), null));
        Instant oldest = oldestPending(c, intents, receipts);
        Duration age = oldest == null ? null : Duration.between(oldest, now);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("database", target.describe());
        doc.put("schemaVersion", Migrator.latestVersion());
        doc.put("counts", counts.objects());
        doc.put("pendingIntents", pending);
        doc.put("oldestPendingAgeSeconds", age == null ? null : age.toSeconds());
        doc.put("deadLetters", dead);
        if (json) {
          json(doc);
        } else {
          out()
              .println(
                  "database " + target.describe() + ", schema version " + Migrator.latestVersion());
          counts.print(out());
          out().println("oldest pending intent: " + (age == null ? "none" : human(age) + " old"));
          out().println("dead letters: " + dead);
        }
        return 0;
      } catch (SQLException e) {
        throw store(e);
      }
    }

    /** Adds one row per group, or one zero row when the table has none. */
    private static long addGroups(
        Table counts, String table, String suffix, Map<String, Long> groups) {
      if (groups.isEmpty()) {
        counts.add(table, suffix.isEmpty() ? "none" : "any queue" + suffix, 0L);
      }
      long total = 0;
      for (Map.Entry<String, Long> e : groups.entrySet()) {
        counts.add(table, e.getKey() + suffix, e.getValue());
        total += e.getValue();
      }
      return total;
    }

    private Instant oldestPending(Connection c, String intents, String receipts)
        throws SQLException {
      try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT MIN(i.created_at) AS oldest FROM "
                      + intents
                      + " i LEFT JOIN "
                      + receipts
                      + " r ON r.scope = i.scope AND r.intent_key = i.intent_key"
                      + " WHERE r.intent_key IS NULL");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        return target.instant(rs, "oldest");
      }
    }

    private long count(Connection c, String sql, Instant at) throws SQLException {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        if (at != null) {
          target.bind(ps, 1, at);
        }
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    }

    private Map<String, Long> grouped(Connection c, String sql, Instant at) throws SQLException {
      Map<String, Long> out = new LinkedHashMap<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        if (at != null) {
          target.bind(ps, 1, at);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.put(rs.getString(1), rs.getLong(2));
          }
        }
      }
      return out;
    }
  }

  @Command(
      name = "pending",
      description = "Lists intents that have no receipt yet, oldest key order.")
  static final class Pending extends Base {
    @Mixin Limit limit;

    @Override
    public Integer call() {
      Instant now = Instant.now();
      try (OnceOnly once = target.open()) {
        List<Intent> pending = once.intents().pending(limit.value());
        Table t = new Table("scope", "key", "operation", "registered", "age");
        for (Intent i : pending) {
          t.add(
              i.key().scope(),
              i.key().key(),
              i.operation(),
              i.registeredAt(),
              human(Duration.between(i.registeredAt(), now)));
        }
        print(Map.of("pending", t.objects()), pending.size() + " pending intent(s)", t);
        return 0;
      }
    }
  }

  @Command(name = "receipts", description = "Looks up receipts.", subcommands = Receipts.Show.class)
  static final class Receipts extends Group {

    @Command(name = "show", description = "Shows the receipt of one intent.")
    static final class Show extends Base {
      @Mixin KeyArgs intent;

      @Override
      public Integer call() {
        try (OnceOnly once = target.open()) {
          IntentKey k = intent.key();
          Receipt r =
              once.receipts()
                  .find(k)
                  .orElseThrow(
                      () -> new CliException(CliException.NOT_FOUND, "no receipt for " + k));
          Map<String, Object> doc = new LinkedHashMap<>();
          doc.put("scope", k.scope());
          doc.put("key", k.key());
          doc.put("operation", r.operation());
          doc.put("fingerprint", r.fingerprint().toString());
          doc.put("state", r.resultJson() == null ? "tombstone" : "result kept");
          doc.put("result", r.resultJson() == null ? null : tree(r.resultJson()));
          doc.put("createdAt", r.createdAt().toString());
          doc.put("expiresAt", r.expiresAt().toString());
          doc.put("forgetAt", r.forgetAt().toString());
          printFields(doc);
          return 0;
        }
      }
    }
  }

  @Command(
      name = "dead-letters",
      description = "Lists or requeues dead letters.",
      subcommands = {DeadLetters.ListCommand.class, DeadLetters.Requeue.class})
  static final class DeadLetters extends Group {

    @Command(name = "list", description = "Lists dead letters, newest first.")
    static final class ListCommand extends Base {
      @Option(names = "--queue", paramLabel = "QUEUE", description = "only this queue")
      String queue;

      @Mixin Limit limit;

      @Override
      public Integer call() {
        try (Connection c = target.connectChecked();
            PreparedStatement ps =
                c.prepareStatement(
                    "SELECT queue, message_key, attempts, last_error, dead_at FROM "
                        + target.table("dead_letters")
                        + (queue == null ? "" : " WHERE queue = ?")
                        + " ORDER BY dead_at DESC, queue, message_key LIMIT "
                        + limit.value())) {
          if (queue != null) {
            ps.setString(1, queue);
          }
          Table t = new Table("queue", "key", "attempts", "deadAt", "lastError");
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              t.add(
                  rs.getString("queue"),
                  rs.getString("message_key"),
                  rs.getInt("attempts"),
                  target.instant(rs, "dead_at"),
                  oneLine(rs.getString("last_error")));
            }
          }
          print(Map.of("deadLetters", t.objects()), t.size() + " dead letter(s)", t);
          return 0;
        } catch (SQLException e) {
          throw store(e);
        }
      }
    }

    @Command(name = "requeue", description = "Puts a dead letter back on its queue, due now.")
    static final class Requeue extends Base {
      @Parameters(index = "0", paramLabel = "QUEUE", description = "the queue")
      String queue;

      @Parameters(index = "1", paramLabel = "KEY", description = "the message's key")
      String key;

      @Override
      public Integer call() {
        try (OnceOnly once = target.open()) {
          if (!once.queue().requeue(queue, key)) {
            throw new CliException(
                CliException.NOT_FOUND,
                "no dead letter "
                    + key
                    + " in queue "
                    + queue
                    + " (or its key is in use in the queue again); nothing changed");
          }
          Map<String, Object> doc = Map.of("queue", queue, "key", key, "requeued", true);
          Table t = new Table("queue", "key", "requeued").add(queue, key, true);
          print(doc, null, t);
          return 0;
        }
      }
    }
  }

  @Command(
      name = "unknown",
      description = "Lists or resolves external effects whose outcome is unknown.",
      subcommands = {Unknown.ListCommand.class, Unknown.Resolve.class})
  static final class Unknown extends Group {

    @Command(
        name = "list",
        description =
            "Lists intents waiting for reconciliation (an expired lease becomes unknown first).")
    static final class ListCommand extends Base {
      @Mixin Limit limit;

      @Override
      public Integer call() {
        try (OnceOnly once = target.open()) {
          List<ClaimRecord> unknown = once.externalEffects().unknown(limit.value());
          Table t =
              new Table(
                  "scope",
                  "key",
                  "operation",
                  "state",
                  "attempts",
                  "downstreamKey",
                  "maybeApplied",
                  "lastError");
          for (ClaimRecord r : unknown) {
            t.add(
                r.key().scope(),
                r.key().key(),
                r.operation(),
                r.state(),
                r.attempts(),
                r.downstreamKey(),
                r.maybeApplied(),
                oneLine(r.lastError()));
          }
          print(Map.of("unknown", t.objects()), unknown.size() + " unknown effect(s)", t);
          return 0;
        }
      }
    }

    @Command(
        name = "resolve",
        description =
            "Settles an unknown effect after checking the provider: --done (with its result) or"
                + " --not-done (a new attempt may run, with the same downstream key).")
    static final class Resolve extends Base {
      @Mixin KeyArgs intent;

      @Option(names = "--done", description = "the effect happened at the provider")
      boolean done;

      @Option(names = "--not-done", description = "the effect did not happen at the provider")
      boolean notDone;

      @Option(
          names = "--result",
          paramLabel = "JSON",
          description = "with --done: the result found at the provider")
      String result;

      @Override
      public Integer call() {
        if (done == notDone) {
          throw new CliException(CliException.USAGE, "give exactly one of --done or --not-done");
        }
        if (notDone && result != null) {
          throw new CliException(CliException.USAGE, "--result goes with --done only");
        }
        JsonNode value = result == null ? null : tree(result);
        IntentKey k = intent.key();
        try (OnceOnly once = target.open()) {
          Optional<ClaimState> state =
              done
                  ? once.externalEffects().resolveDone(k, value)
                  : once.externalEffects().resolveNotDone(k);
          if (state.isEmpty()) {
            throw new CliException(
                CliException.NOT_FOUND,
                "no unknown external effect for " + k + "; nothing changed");
          }
          Map<String, Object> doc = new LinkedHashMap<>();
          doc.put("scope", k.scope());
          doc.put("key", k.key());
          doc.put("state", state.get().name());
          print(doc, null, new Table("scope", "key", "state").add(k.scope(), k.key(), state.get()));
          return 0;
        }
      }
    }
  }

  @Command(
      name = "purge",
      description =
          "Applies retention: expired results become tombstones and old tombstones go (as the"
              + " store's retention says), and rejections and dead letters older than"
              + " --older-than are deleted.")
  static final class Purge extends Base {
    @Option(
        names = "--older-than",
        required = true,
        paramLabel = "AGE",
        converter = AgeConverter.class,
        description = "e.g. 30d, 12h, 90m or an ISO-8601 duration such as P30D")
    Duration olderThan;

    @Override
    public Integer call() {
      Instant cutoff = Instant.now().minus(olderThan);
      long tombstoned = 0;
      long deleted = 0;
      try (OnceOnly once = target.open()) {
        ReceiptStore.PurgeResult r;
        do {
          r = once.receipts().purge(1_000);
          tombstoned += r.tombstoned();
          deleted += r.deleted();
        } while (r.total() > 0);
      }
      long rejections;
      long deadLetters;
      try (Connection c = target.connectChecked()) {
        c.setAutoCommit(false);
        rejections =
            delete(
                c, "DELETE FROM " + target.table("rejections") + " WHERE created_at < ?", cutoff);
        String dead = target.table("dead_letters");
        delete(
            c,
            "DELETE FROM "
                + target.table("payloads")
                + " WHERE payload_ref IN (SELECT payload_ref FROM "
                + dead
                + " WHERE dead_at < ?) AND payload_ref NOT IN (SELECT payload_ref FROM "
                + target.table("messages")
                + " WHERE payload_ref IS NOT NULL)",
            cutoff);
        deadLetters = delete(c, "DELETE FROM " + dead + " WHERE dead_at < ?", cutoff);
        c.commit();
      } catch (SQLException e) {
        throw store(e);
      }
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("olderThan", olderThan.toString());
      doc.put("receiptsTombstoned", tombstoned);
      doc.put("receiptsDeleted", deleted);
      doc.put("rejectionsDeleted", rejections);
      doc.put("deadLettersDeleted", deadLetters);
      printFields(doc);
      return 0;
    }

    private long delete(Connection c, String sql, Instant cutoff) throws SQLException {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        target.bind(ps, 1, cutoff);
        return ps.executeUpdate();
      }
    }
  }

  @Command(
      name = "migrate",
      description = "Creates the schema, or brings it to this version (creates a new --db file).")
  static final class Migrate extends Base {
    @Override
    public Integer call() {
      int before;
      try (Connection c = target.connect(true)) {
        OptionalInt found = target.schemaVersion(c);
        before = found.orElse(0);
        target.checkNotNewer(before);
      } catch (SQLException e) {
        throw store(e);
      }
      target.openStore(OnceOnly.builder()).close(); // opening applies the migrations
      int after = Migrator.latestVersion();
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("database", target.describe());
      doc.put("versionBefore", before);
      doc.put("versionAfter", after);
      if (json) {
        json(doc);
      } else {
        out()
            .println(
                before == after
                    ? "schema of " + target.describe() + " is up to date (version " + after + ")"
                    : "migrated " + target.describe() + " from version " + before + " to " + after);
      }
      return 0;
    }
  }

  /** Parses {@code 30d}, {@code 12h}, {@code 90m}, {@code 45s} or an ISO-8601 duration. */
  static final class AgeConverter implements ITypeConverter<Duration> {
    private static final Pattern SHORT = Pattern.compile("(\\d{1,9})([dhms])");

    @Override
    public Duration convert(String value) {
      Matcher m = SHORT.matcher(value.strip().toLowerCase(Locale.ROOT));
      Duration d;
      if (m.matches()) {
        try {
          long n = Long.parseLong(m.group(1));
          d =
              switch (m.group(2)) {
                case "d" -> Duration.ofDays(n);
                case "h" -> Duration.ofHours(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofSeconds(n);
              };
        } catch (NumberFormatException | ArithmeticException e) {
          throw new TypeConversionException(tooOld(value));
        }
      } else {
        try {
          d = Duration.parse(value);
        } catch (DateTimeParseException e) {
          throw new TypeConversionException("not an age such as 30d, 12h, 90m or P30D: " + value);
        }
      }
      if (d.isNegative() || d.isZero()) {
        throw new TypeConversionException("the age must be > 0: " + value);
      }
      if (d.compareTo(MAX_AGE) > 0) {
        throw new TypeConversionException(tooOld(value));
      }
      return d;
    }

    /** The library's bound on every duration: 100 years. */
    private static final Duration MAX_AGE = Duration.ofDays(36_525);

    private static String tooOld(String value) {
      return "the age must be at most 36525d (100 years): " + value;
    }
  }

  static JsonNode tree(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new CliException(
          CliException.USAGE, "not valid JSON: " + Target.firstLine(e.getMessage()));
    }
  }

  static String oneLine(String text) {
    if (text == null) {
      return null;
    }
    String line = text.replaceAll("\\s+", " ").strip();
    return line.length() <= 80 ? line : line.substring(0, 79) + "\u2026";
  }

  static String human(Duration d) {
    long s = d.toSeconds();
    if (s < 120) {
      return s + "s";
    }
    if (s < 7_200) {
      return (s / 60) + "m";
    }
    if (s < 172_800) {
      return (s / 3_600) + "h";
    }
    return (s / 86_400) + "d";
  }
}
