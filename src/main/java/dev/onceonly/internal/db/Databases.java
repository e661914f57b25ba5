package dev.onceonly.internal.db;

import dev.onceonly.StoreException;
import dev.onceonly.sql.Dialect;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Opens the {@link Database} a builder names: a SQLite file, a caller's connection or a caller's
 * data source, exactly one of them, with the dialect given or read from the connection's metadata.
 */
public final class Databases {
  private Databases() {}

  /**
   * Where the store's connections come from; exactly one of the three is set.
   *
   * @param sqliteFile a SQLite file, with {@code sqliteOpener} opening it, or null
   * @param sqliteOpener opens the SQLite file with the builder's settings, or null
   * @param connection a caller's connection, or null
   * @param dataSource a caller's data source, or null
   * @param dialect the dialect (SQLite's for a file), or null to read it from the connection's
   *     metadata
   * @param maxBatch the group commit's largest batch
   * @param maxWait the group commit's longest wait
   */
  public record Source(
      Path sqliteFile,
      SingleConnectionDatabase.Opener sqliteOpener,
      Connection connection,
      DataSource dataSource,
      Dialect dialect,
      int maxBatch,
      Duration maxWait) {}

  /**
   * Opens the database of {@code source}.
   *
   * @throws IllegalStateException unless exactly one source is set
   * @throws StoreException if the source cannot be reached or its metadata read
   */
  public static Database open(Source source) {
    int sources =
        (source.sqliteFile() != null ? 1 : 0)
            + (source.dataSource() != null ? 1 : 0)
            + (source.connection() != null ? 1 : 0);
    if (sources != 1) {
      throw new IllegalStateException("set exactly one of sqlite, dataSource or connection");
    }
    if (source.sqliteFile() != null) {
      SqliteFiles.refuseUnwritable(source.sqliteFile()); // SQLite would open it read-only, silently
      return new SingleConnectionDatabase(
          source.dialect(), source.sqliteOpener(), true, source.maxBatch(), source.maxWait());
    }
    if (source.connection() != null) {
      Connection c = source.connection();
      return new SingleConnectionDatabase(
          detect(c, source.dialect()), () -> c, false, source.maxBatch(), source.maxWait());
    }
    try (Connection c = source.dataSource().getConnection()) {
      return new DataSourceDatabase(detect(c, source.dialect()), source.dataSource());
    } catch (SQLException e) {
      throw new StoreException("cannot connect to the data source", "unknown", e);
    }
  }

  private static Dialect detect(Connection c, Dialect dialect) {
    if (dialect != null) {
      return dialect;
    }
    try {
      return Dialect.detect(c);
    } catch (SQLException e) {
      throw new StoreException("cannot read the connection's metadata", "unknown", e);
    }
  }
}
