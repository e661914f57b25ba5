package dev.onceonly.internal.maintenance;

import dev.onceonly.Durability;
import dev.onceonly.ReceiptStore;
import dev.onceonly.external.ClaimState;
import dev.onceonly.internal.db.Database;
import dev.onceonly.internal.db.Migrator;
import dev.onceonly.maintenance.Audit;
import dev.onceonly.maintenance.Backlog;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.maintenance.QueueBreakdown;
import dev.onceonly.maintenance.QueuePage;
import dev.onceonly.maintenance.QueuedMessage;
import dev.onceonly.maintenance.StoreStatus;
import dev.onceonly.maintenance.StoreStatus.PendingIntent;
import dev.onceonly.maintenance.StoreStatus.QueueCounts;
import dev.onceonly.workflow.Workflows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/** {@link Maintenance} over the store's own tables, in both dialects. */
public final class SqlMaintenance implements Maintenance {
  private final Database database;
  private final InstantSource clock;
  private final ReceiptStore receipts;
  private final Migrator migrator;
  private final Workflows workflows;
  private final String description;
  private final MaintenanceStatements sql;
  private final QueueInspection queues;
  private final StatusReads reads;

  /**
   * Creates the maintenance view of one store.
   *
   * @param database the store's database
   * @param prefix the validated table prefix
   * @param clock the store's clock
   * @param receipts the store's receipts, whose purge this reuses
   * @param migrator the store's migrator
   * @param description what the store runs on, for people
   */
  public SqlMaintenance(
      Database database,
      String prefix,
      InstantSource clock,
      ReceiptStore receipts,
      Migrator migrator,
      Workflows workflows,
      String description) {
    this.database = database;
    this.workflows = workflows;
    this.clock = clock;
    this.receipts = receipts;
    this.migrator = migrator;
    this.description = description;
    this.sql = new MaintenanceStatements(prefix, database.sql());
    this.queues = new QueueInspection(database, prefix);
    this.reads = new StatusReads(sql, database.times());
  }

  @Override
  public StoreStatus status() {
    Instant now = clock.instant();
    int version = schemaVersion().found();
    return database.read(c -> reads.status(c, description, now, version));
  }

  @Override
  public Backlog backlog() {
    Instant now = clock.instant();
    return database.read(c -> reads.backlog(c, now));
  }

  @Override
  public Instant now() {
    return clock.instant();
  }

  @Override
  public PerMinute deadLetteredPerMinute(int minutes) {
    if (minutes < 1 || minutes > MAX_MINUTES) {
      throw new IllegalArgumentException("minutes must be between 1 and " + MAX_MINUTES);
    }
    Instant start =
        clock
            .instant()
            .truncatedTo(java.time.temporal.ChronoUnit.MINUTES)
            .minus(Duration.ofMinutes(minutes - 1L));
    return database.read(
        c -> {
          List<Long> counts = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(sql.countDeadLetteredBetween)) {
            for (int i = 0; i < minutes; i++) {
              bind(ps, 1, start.plus(Duration.ofMinutes(i)));
              bind(ps, 2, start.plus(Duration.ofMinutes(i + 1L)));
              try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                counts.add(rs.getLong(1));
              }
            }
          }
          return new PerMinute(start, counts);
        });
  }

  @Override
  public Optional<PendingIntent> oldestPending() {
    Instant now = clock.instant();
    return database.read(c -> reads.oldestPending(c, now));
  }

  @Override
  public Optional<Duration> oldestDueAge() {
    Instant now = clock.instant();
    return database.read(c -> reads.oldestDueAge(c, now));
  }

  @Override
  public QueuePage queues(String nameContains, long offset, int limit) {
    Objects.requireNonNull(nameContains, "nameContains");
    checkBatch("limit", limit);
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0: " + offset);
    }
    Instant now = clock.instant();
    return database.read(c -> queues(c, nameContains, offset, limit, now));
  }

  private QueuePage queues(Connection c, String part, long offset, int limit, Instant now)
      throws SQLException {
    boolean named = !part.isEmpty();
    long total;
    try (PreparedStatement ps =
        c.prepareStatement(named ? sql.countQueuesNamed : sql.countQueues)) {
      if (named) {
        ps.setString(1, part);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        total = rs.getLong(1);
      }
    }
    List<QueuePage.Queue> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(named ? sql.queuePageNamed : sql.queuePage)) {
      bind(ps, 1, now);
      bind(ps, 2, now);
      int i = 3;
      if (named) {
        ps.setString(i++, part);
      }
      ps.setInt(i++, limit);
      ps.setLong(i, offset);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long due = rs.getLong(2);
          long leased = rs.getLong(3);
          QueueCounts counts = new QueueCounts(due, leased, rs.getLong(4) - due - leased);
          out.add(new QueuePage.Queue(rs.getString(1), counts, rs.getLong(5)));
        }
      }
    }
    return new QueuePage(total, offset, out);
  }

  @Override
  public List<DeadLetterSummary> recentDeadLetters(String queue, int limit) {
    return recentDeadLetters(queue, 0, limit);
  }

  @Override
  public List<DeadLetterSummary> recentDeadLetters(String queue, long offset, int limit) {
    checkBatch("limit", limit);
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0: " + offset);
    }
    return database.read(c -> recentDeadLetters(c, queue, offset, limit));
  }

  @Override
  public boolean deleteDeadLetter(String queue, String key) {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(key, "key");
    return database.write(c -> deleteDeadLetter(c, queue, key, null));
  }

  @Override
  public boolean deleteDeadLetter(String queue, String key, Instant deadAt) {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(deadAt, "deadAt");
    return database.write(c -> deleteDeadLetter(c, queue, key, deadAt));
  }

  /** Deletes the dead letter of {@code key}; with {@code deadAt}, only the one dead then. */
  private boolean deleteDeadLetter(Connection c, String queue, String key, Instant deadAt)
      throws SQLException {
    String ref;
    try (PreparedStatement ps =
        c.prepareStatement(deadAt == null ? sql.deadLetterPayloadRef : sql.listedPayloadRef)) {
      ps.setString(1, queue);
      ps.setString(2, key);
      if (deadAt != null) {
        database.times().set(ps, 3, deadAt.toEpochMilli());
      }
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return false; // with deadAt: gone, or a later dead letter of the key, left alone
        }
        ref = rs.getString(1);
      }
    }
    int deleted;
    try (PreparedStatement ps =
        c.prepareStatement(deadAt == null ? sql.deleteDeadLetter : sql.deleteListedDeadLetter)) {
      ps.setString(1, queue);
      ps.setString(2, key);
      if (deadAt != null) { // checked again: on a server the row may have changed since the read
        database.times().set(ps, 3, deadAt.toEpochMilli());
      }
      deleted = ps.executeUpdate();
    }
    deleteUnusedPayload(c, ref);
    if (deleted == 1) {
      deleteAttemptErrors(c, queue, key);
    }
    return deleted == 1;
  }

  private void deleteAttemptErrors(Connection c, String queue, String key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.deleteAttemptErrors)) {
      ps.setString(1, queue);
      ps.setString(2, key);
      ps.executeUpdate();
    }
  }

  private void deleteUnusedPayload(Connection c, String ref) throws SQLException {
    if (ref == null) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(sql.deleteUnusedPayload)) {
      for (int i = 1; i <= 3; i++) {
        ps.setString(i, ref);
      }
      ps.executeUpdate();
    }
  }

  private List<DeadLetterSummary> recentDeadLetters(
      Connection c, String queue, long offset, int limit) throws SQLException {
    List<DeadLetterSummary> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(queue == null ? sql.recentDeadLetters : sql.recentDeadLettersOfQueue)) {
      int i = 1;
      if (queue != null) {
        ps.setString(i++, queue);
      }
      ps.setInt(i++, limit);
      ps.setLong(i, offset);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new DeadLetterSummary(
                  rs.getString(1), rs.getString(2), rs.getInt(3), rs.getString(4), instant(rs, 5)));
        }
      }
    }
    return out;
  }

  @Override
  public List<LiveLease> liveLeases(String queue, int limit) {
    Objects.requireNonNull(queue, "queue");
    checkBatch("limit", limit);
    Instant now = clock.instant();
    return database.read(c -> liveLeases(c, queue, now, limit));
  }

  private List<LiveLease> liveLeases(Connection c, String queue, Instant now, int limit)
      throws SQLException {
    List<LiveLease> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.liveLeases)) {
      ps.setString(1, queue);
      bind(ps, 2, now);
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new LiveLease(queue, rs.getString(1), rs.getLong(2), rs.getInt(3), instant(rs, 4)));
        }
      }
    }
    return out;
  }

  @Override
  public QueueBreakdown queueBreakdown(String queue, int partitions) {
    Objects.requireNonNull(queue, "queue");
    checkBatch("partitions", partitions);
    return queues.breakdown(queue, clock.instant(), partitions);
  }

  @Override
  public Optional<QueuedMessage> findMessage(String queue, String key) {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(key, "key");
    return queues.find(queue, key, clock.instant());
  }

  @Override
  public List<MessageSummary> messages(String queue, long afterId, int limit) {
    Objects.requireNonNull(queue, "queue");
    checkBatch("limit", limit);
    if (afterId < 0) {
      throw new IllegalArgumentException("afterId must be >= 0: " + afterId);
    }
    return queues.page(queue, afterId, limit, clock.instant());
  }

  @Override
  public SchemaVersion schemaVersion() {
    return new SchemaVersion(migrator.recordedVersion(), Migrator.latestVersion());
  }

  @Override
  public Durability durability() {
    return database.read(c -> database.sql().durability(c));
  }

  @Override
  public ReceiptPurge purgeReceipts(int batchSize, LongConsumer progress) {
    checkBatch("batchSize", batchSize);
    Objects.requireNonNull(progress, "progress");
    long tombstoned = 0;
    long deleted = 0;
    ReceiptStore.PurgeResult batch;
    do {
      batch = receipts.purge(batchSize);
      tombstoned += batch.tombstoned();
      deleted += batch.deleted();
      if (batch.total() > 0) {
        progress.accept(tombstoned + deleted);
      }
    } while (batch.total() == batchSize);
    return new ReceiptPurge(tombstoned, deleted);
  }

  @Override
  public long purgeRejections(Duration olderThan, int batchSize, LongConsumer progress) {
    Instant cutoff = cutoff(olderThan, batchSize, progress);
    return batches(batchSize, progress, c -> deleteRejections(c, cutoff, batchSize));
  }

  private int deleteRejections(Connection c, Instant cutoff, int batchSize) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql.purgeRejections, cutoff)) {
      ps.setInt(2, batchSize);
      return ps.executeUpdate();
    }
  }

  @Override
  public long purgeDeadLetters(Duration olderThan, int batchSize, LongConsumer progress) {
    Instant cutoff = cutoff(olderThan, batchSize, progress);
    return batches(batchSize, progress, c -> deleteDeadLetters(c, cutoff, batchSize));
  }

  private int deleteDeadLetters(Connection c, Instant cutoff, int batchSize) throws SQLException {
    List<String[]> rows = new ArrayList<>();
    try (PreparedStatement ps = prepare(c, sql.oldDeadLetters, cutoff)) {
      ps.setInt(2, batchSize);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
        }
      }
    }
    int deleted = 0;
    for (String[] row : rows) {
      try (PreparedStatement ps = c.prepareStatement(sql.deleteDeadLetter)) {
        ps.setString(1, row[0]);
        ps.setString(2, row[1]);
        deleted += ps.executeUpdate();
      }
      deleteUnusedPayload(c, row[2]);
      deleteAttemptErrors(c, row[0], row[1]);
    }
    return deleted;
  }

  @Override
  public long purgeWorkflows(Duration olderThan, int batchSize, LongConsumer progress) {
    Instant cutoff = cutoff(olderThan, batchSize, progress);
    int limit = Math.min(batchSize, 1_000); // what one purgeFinished takes
    long total = 0;
    int n;
    do {
      n = workflows.purgeFinished(cutoff, limit);
      total += n;
      if (n > 0) {
        progress.accept(total);
      }
    } while (n == limit);
    return total;
  }

  @Override
  public Migration migrate(IntConsumer applied) {
    Objects.requireNonNull(applied, "applied");
    int before = migrator.migrate(applied);
    return new Migration(before, Migrator.latestVersion());
  }

  /** Runs write batches until one deletes fewer than {@code batchSize} rows. */
  private long batches(int batchSize, LongConsumer progress, Database.Work<Integer> batch) {
    long total = 0;
    int n;
    do {
      n = database.write(batch);
      total += n;
      if (n > 0) {
        progress.accept(total);
      }
    } while (n == batchSize);
    return total;
  }

  @Override
  public Audit.Report audit(Audit.Rules rules) {
    Objects.requireNonNull(rules, "rules");
    Instant now = clock.instant();
    return database.read(c -> audit(c, rules, now));
  }

  /** Collects an audit's findings: the first {@link Audit#MAX_LISTED} listed, all counted. */
  private static final class Findings {
    final Map<Audit.Kind, Long> counts = new EnumMap<>(Audit.Kind.class);
    final List<Audit.Finding> listed = new ArrayList<>();

    void add(Audit.Kind kind, String where, String key, String detail) {
      counts.merge(kind, 1L, Long::sum);
      if (listed.size() < Audit.MAX_LISTED) {
        listed.add(new Audit.Finding(kind, where, key, detail));
      }
    }

    void count(Audit.Kind kind, long n) {
      counts.merge(kind, n, Long::sum);
    }

    /** Lists a finding already counted by {@link #count}. */
    void listed(Audit.Kind kind, String where, String key, String detail) {
      if (listed.size() < Audit.MAX_LISTED) {
        listed.add(new Audit.Finding(kind, where, key, detail));
      }
    }
  }

  /** An effect's or a receipt's key: the scope is null when the effects query gives none. */
  private record EffectKey(String scope, String key) {}

  private Audit.Report audit(Connection c, Audit.Rules rules, Instant now) throws SQLException {
    Findings f = new Findings();
    long effectKeys = 0;
    long receiptCount = 0;
    if (rules.checksEffects()) {
      Map<EffectKey, Long> effects = effects(c, rules.effectsQuery());
      effectKeys = effects.size();
      boolean scoped = effects.keySet().stream().anyMatch(k -> k.scope() != null);
      Set<EffectKey> receipts = receiptKeys(c, rules.operation(), scoped);
      receiptCount = receipts.size();
      for (Map.Entry<EffectKey, Long> e : effects.entrySet()) {
        EffectKey k = e.getKey();
        long n = e.getValue();
        String where = k.scope() == null ? "" : k.scope();
        if (n > 1) {
          f.add(Audit.Kind.DUPLICATE_EFFECT, where, k.key(), n + " effects for one intent");
        }
        if (n > 0 && !receipts.contains(k)) {
          f.add(
              Audit.Kind.EFFECT_WITHOUT_RECEIPT,
              where,
              k.key(),
              n + (n == 1 ? " effect" : " effects") + ", no receipt of " + rules.operation());
        }
      }
      for (EffectKey k : receipts) {
        if (effects.getOrDefault(k, 0L) == 0) {
          f.add(
              Audit.Kind.RECEIPT_WITHOUT_EFFECT,
              k.scope() == null ? "" : k.scope(),
              k.key(),
              "receipt of " + rules.operation() + " without its effect");
        }
      }
    }
    forgotten(c, f, cutoff(now, rules.pendingBound()), now);
    staleLeases(c, f, cutoff(now, rules.leaseGrace()), now);
    return new Audit.Report(now, effectKeys, receiptCount, f.counts, f.listed);
  }

  private static Instant cutoff(Instant now, Duration bound) {
    return bound.compareTo(Duration.between(Instant.EPOCH, now)) > 0
        ? Instant.EPOCH
        : now.minus(bound);
  }

  private static Map<EffectKey, Long> effects(Connection c, String query) {
    Map<EffectKey, Long> out = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(query);
        ResultSet rs = ps.executeQuery()) {
      int columns = rs.getMetaData().getColumnCount();
      if (columns != 2 && columns != 3) {
        throw new IllegalArgumentException(
            "effectsQuery must return (key, count) or (scope, key, count), not "
                + columns
                + " columns");
      }
      while (rs.next()) {
        EffectKey k =
            columns == 2
                ? new EffectKey(null, rs.getString(1))
                : new EffectKey(rs.getString(1), rs.getString(2));
        out.merge(k, rs.getLong(columns), Long::sum);
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalArgumentException("effectsQuery failed: " + e.getMessage(), e);
    }
  }

  private Set<EffectKey> receiptKeys(Connection c, String operation, boolean scoped)
      throws SQLException {
    Set<EffectKey> out = new HashSet<>();
    String scope = "";
    String key = "";
    int n;
    do {
      n = 0;
      try (PreparedStatement ps = c.prepareStatement(sql.receiptKeysPage)) {
        ps.setString(1, operation);
        ps.setString(2, scope);
        ps.setString(3, scope);
        ps.setString(4, key);
        ps.setInt(5, MAX_BATCH);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            n++;
            scope = rs.getString(1);
            key = rs.getString(2);
            out.add(new EffectKey(scoped ? scope : null, key));
          }
        }
      }
    } while (n == MAX_BATCH);
    return out;
  }

  private void forgotten(Connection c, Findings f, Instant before, Instant now)
      throws SQLException {
    f.count(Audit.Kind.FORGOTTEN_INTENT, longs(c, sql.countForgotten, 1, before)[0]);
    try (PreparedStatement ps = prepare(c, sql.forgotten, before)) {
      ps.setInt(2, Audit.MAX_LISTED);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          f.listed(
              Audit.Kind.FORGOTTEN_INTENT,
              rs.getString(1),
              rs.getString(2),
              "registered "
                  + Duration.between(instant(rs, 3), now).toSeconds()
                  + "s ago, no receipt");
        }
      }
    }
  }

  private void staleLeases(Connection c, Findings f, Instant before, Instant now)
      throws SQLException {
    f.count(Audit.Kind.STALE_LEASE, longs(c, sql.countStaleMessages, 1, before)[0]);
    try (PreparedStatement ps = prepare(c, sql.staleMessages, before)) {
      ps.setInt(2, Audit.MAX_LISTED);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          f.listed(
              Audit.Kind.STALE_LEASE,
              rs.getString(1),
              rs.getString(2),
              "message lease ran out "
                  + Duration.between(instant(rs, 3), now).toSeconds()
                  + "s ago");
        }
      }
    }
    String held = ClaimState.IN_PROGRESS.name();
    String cancelling = ClaimState.CANCEL_REQUESTED.name();
    try (PreparedStatement ps = c.prepareStatement(sql.countStaleClaims)) {
      ps.setString(1, held);
      ps.setString(2, cancelling);
      bind(ps, 3, before);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        f.count(Audit.Kind.STALE_LEASE, rs.getLong(1));
      }
    }
    try (PreparedStatement ps = c.prepareStatement(sql.staleClaims)) {
      ps.setString(1, held);
      ps.setString(2, cancelling);
      bind(ps, 3, before);
      ps.setInt(4, Audit.MAX_LISTED);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          f.listed(
              Audit.Kind.STALE_LEASE,
              rs.getString(1),
              rs.getString(2),
              "claim lease ran out " + Duration.between(instant(rs, 3), now).toSeconds() + "s ago");
        }
      }
    }
  }

  private Instant cutoff(Duration olderThan, int batchSize, LongConsumer progress) {
    Objects.requireNonNull(olderThan, "olderThan");
    Objects.requireNonNull(progress, "progress");
    if (olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must be >= 0: " + olderThan);
    }
    checkBatch("batchSize", batchSize);
    Instant now = clock.instant();
    // a bound reaching before the epoch keeps everything, as no row is that old
    return olderThan.compareTo(Duration.between(Instant.EPOCH, now)) > 0
        ? Instant.EPOCH
        : now.minus(olderThan);
  }

  private static void checkBatch(String name, int value) {
    if (value < 1 || value > MAX_BATCH) {
      throw new IllegalArgumentException(
          name + " must be between 1 and " + MAX_BATCH + ": " + value);
    }
  }

  private PreparedStatement prepare(Connection c, String statement, Instant... at)
      throws SQLException {
    return StatusReads.prepare(c, database.times(), statement, at);
  }

  private long[] longs(Connection c, String statement, int columns, Instant... at)
      throws SQLException {
    return StatusReads.longs(c, database.times(), statement, columns, at);
  }

  private void bind(PreparedStatement ps, int i, Instant at) throws SQLException {
    database.times().set(ps, i, at.toEpochMilli());
  }

  private Instant instant(ResultSet rs, int i) throws SQLException {
    return StatusReads.instant(rs, database.times(), i);
  }
}
