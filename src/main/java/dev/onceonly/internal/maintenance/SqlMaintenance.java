package dev.onceonly.internal.maintenance;

import dev.onceonly.IntentKey;
import dev.onceonly.ReceiptStore;
import dev.onceonly.internal.db.Database;
import dev.onceonly.internal.db.Migrator;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.maintenance.StoreStatus;
import dev.onceonly.maintenance.StoreStatus.PendingIntent;
import dev.onceonly.maintenance.StoreStatus.QueueCounts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/** {@link Maintenance} over the store's own tables, in both dialects. */
public final class SqlMaintenance implements Maintenance {
  private final Database database;
  private final InstantSource clock;
  private final ReceiptStore receipts;
  private final Migrator migrator;
  private final String description;
  private final MaintenanceStatements sql;

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
      String description) {
    this.database = database;
    this.clock = clock;
    this.receipts = receipts;
    this.migrator = migrator;
    this.description = description;
    this.sql = new MaintenanceStatements(prefix);
  }

  @Override
  public StoreStatus status() {
    Instant now = clock.instant();
    int version = schemaVersion().found();
    return database.read(c -> status(c, now, version));
  }

  private StoreStatus status(Connection c, Instant now, int version) throws SQLException {
    long[] r = longs(c, sql.countReceipts, 3, now, now);
    Map<String, QueueCounts> messages = new LinkedHashMap<>();
    try (PreparedStatement ps = prepare(c, sql.countMessages, now, now, now);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        messages.put(rs.getString(1), new QueueCounts(rs.getLong(2), rs.getLong(3), rs.getLong(4)));
      }
    }
    return new StoreStatus(
        description,
        version,
        now,
        longs(c, sql.countIntents, 1)[0],
        longs(c, sql.countPending, 1)[0],
        r[0],
        r[1],
        r[2],
        messages,
        grouped(c, sql.countDeadLetters),
        longs(c, sql.countRejections, 1)[0],
        grouped(c, sql.countClaims),
        oldestPending(c, now),
        oldestDueAge(c, now));
  }

  @Override
  public Optional<PendingIntent> oldestPending() {
    Instant now = clock.instant();
    return database.read(c -> oldestPending(c, now));
  }

  private Optional<PendingIntent> oldestPending(Connection c, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.oldestPending);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      Instant at = instant(rs, 3);
      return Optional.of(
          new PendingIntent(
              IntentKey.of(rs.getString(1), rs.getString(2)), at, Duration.between(at, now)));
    }
  }

  @Override
  public Optional<Duration> oldestDueAge() {
    Instant now = clock.instant();
    return database.read(c -> oldestDueAge(c, now));
  }

  private Optional<Duration> oldestDueAge(Connection c, Instant now) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql.oldestDue, now);
        ResultSet rs = ps.executeQuery()) {
      Instant at = rs.next() ? instant(rs, 1) : null;
      return at == null ? Optional.empty() : Optional.of(Duration.between(at, now));
    }
  }

  @Override
  public List<DeadLetterSummary> recentDeadLetters(String queue, int limit) {
    checkBatch("limit", limit);
    return database.read(c -> recentDeadLetters(c, queue, limit));
  }

  private List<DeadLetterSummary> recentDeadLetters(Connection c, String queue, int limit)
      throws SQLException {
    List<DeadLetterSummary> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(queue == null ? sql.recentDeadLetters : sql.recentDeadLettersOfQueue)) {
      int i = 1;
      if (queue != null) {
        ps.setString(i++, queue);
      }
      ps.setInt(i, limit);
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
  public SchemaVersion schemaVersion() {
    return new SchemaVersion(migrator.recordedVersion(), Migrator.latestVersion());
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
      if (row[2] != null) {
        try (PreparedStatement ps = c.prepareStatement(sql.deleteUnusedPayload)) {
          for (int i = 1; i <= 3; i++) {
            ps.setString(i, row[2]);
          }
          ps.executeUpdate();
        }
      }
    }
    return deleted;
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
    PreparedStatement ps = c.prepareStatement(statement);
    try {
      for (int i = 0; i < at.length; i++) {
        bind(ps, i + 1, at[i]);
      }
      return ps;
    } catch (SQLException e) {
      ps.close();
      throw e;
    }
  }

  private long[] longs(Connection c, String statement, int columns, Instant... at)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, statement, at);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      long[] out = new long[columns];
      for (int i = 0; i < columns; i++) {
        out[i] = rs.getLong(i + 1);
      }
      return out;
    }
  }

  private static Map<String, Long> grouped(Connection c, String statement) throws SQLException {
    Map<String, Long> out = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement(statement);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
    }
    return out;
  }

  private void bind(PreparedStatement ps, int i, Instant at) throws SQLException {
    database.times().set(ps, i, at.toEpochMilli());
  }

  private Instant instant(ResultSet rs, int i) throws SQLException {
    Long millis = database.times().getNullable(rs, i);
    return millis == null ? null : Instant.ofEpochMilli(millis);
  }
}
