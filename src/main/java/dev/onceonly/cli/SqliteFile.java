package dev.onceonly.cli;

import dev.onceonly.sql.SqliteUrls;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * What an existing, non-empty {@code --db} file is, read from its 100-byte header without opening
 * it through SQLite: whether it is a SQLite database at all, and whether it was left in WAL mode.
 * (SQLite itself would take a 0-byte file for a new, empty database and write its header into it on
 * the first write; {@link Target} refuses one first.) and a read-only connection to a WAL file
 * whose {@code -wal} is gone creates {@code -wal} and {@code -shm} files and leaves them behind.
 * The commands that read use this to touch nothing; the ones that write, to keep the journal mode
 * the file was given.
 */
final class SqliteFile {
  private static final byte[] MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
  private static final int HEADER = 100;

  private final Path file;
  private final boolean wal;

  private SqliteFile(Path file, boolean wal) {
    this.file = file;
    this.wal = wal;
  }

  /**
   * Reads the header of an existing file.
   *
   * @throws CliException if the file cannot be read or is not a SQLite database
   */
  static SqliteFile inspect(Path file) {
    byte[] header;
    try (InputStream in = Files.newInputStream(file)) {
      header = in.readNBytes(HEADER);
    } catch (IOException e) {
      throw new CliException(
          CliException.UNREACHABLE, "cannot read " + file + ": " + Target.firstLine(e.toString()));
    }
    if (header.length < HEADER || !Arrays.equals(header, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new CliException(CliException.SCHEMA, file + " is not a SQLite database");
    }
    // bytes 18 and 19: the file format's write and read versions, 2 in WAL mode, 1 otherwise
    return new SqliteFile(file, header[18] == 2 || header[19] == 2);
  }

  /** Whether the file is in rollback-journal mode (not WAL). */
  boolean rollbackJournal() {
    return !wal;
  }

  /**
   * Returns a data source of read-only connections that leave the file and its neighbours as they
   * are: {@code mode=ro}, and no {@code journal_mode} or any other setting that writes. A WAL file
   * without a {@code -wal} file beside it (no process has it open, nothing is left to checkpoint)
   * is read as {@code immutable=1}, which opens neither {@code -wal} nor {@code -shm}: all its
   * content is in the file itself. A process that opens the file meanwhile writes into a new {@code
   * -wal}, which this command does not see, as if it had run a moment earlier.
   */
  DataSource readOnly() {
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.setBusyTimeout(5_000);
    SQLiteDataSource ds = new SQLiteDataSource(config);
    boolean idle = wal && !Files.exists(Path.of(file + "-wal"));
    ds.setUrl(SqliteUrls.jdbcUrl(file) + (idle ? "?mode=ro&immutable=1" : "?mode=ro"));
    return ds;
  }
}
