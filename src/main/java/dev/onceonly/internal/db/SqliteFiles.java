package dev.onceonly.internal.db;

import dev.onceonly.StoreException;
import dev.onceonly.sql.SqliteUrls;
import java.io.IOException;
import java.nio.file.AccessMode;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.sqlite.SQLiteConfig;

/**
 * Opens a SQLite file by its exact name ({@link SqliteUrls}), naming a missing folder, and refuses
 * one this process cannot write.
 */
public final class SqliteFiles {
  private SqliteFiles() {}

  /**
   * Opens a store's file with its settings: synchronous FULL or NORMAL, the busy timeout, foreign
   * keys on, and the journal mode asked for (switched only when it differs).
   *
   * @param file the database file
   * @param full synchronous FULL, else NORMAL
   * @param busyTimeout how long a statement waits for another writer
   * @param journalMode the journal mode, lower case ({@code wal} or {@code delete})
   * @return the open connection
   * @throws SQLException if SQLite refuses
   */
  public static Connection openStore(
      Path file, boolean full, Duration busyTimeout, String journalMode) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setSynchronous(
        full ? SQLiteConfig.SynchronousMode.FULL : SQLiteConfig.SynchronousMode.NORMAL);
    config.setBusyTimeout((int) Math.min(Integer.MAX_VALUE, busyTimeout.toMillis()));
    config.enforceForeignKeys(true);
    Connection c = open(config, file);
    try {
      useJournalMode(c, journalMode, busyTimeout);
      return c;
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /**
   * Opens a connection to exactly this file, creating it if missing.
   *
   * @param config the connection's settings
   * @param file the database file; its folder must exist
   * @return the connection
   * @throws SQLException if the folder is missing or SQLite cannot open the file
   */
  public static Connection open(SQLiteConfig config, Path file) throws SQLException {
    Path folder = file.toAbsolutePath().getParent();
    if (folder != null && !Files.isDirectory(folder)) {
      // SQLite itself would only say "unable to open database file"
      throw new SQLException("no folder " + folder + " for the database file " + file);
    }
    return config.createConnection(SqliteUrls.jdbcUrl(file));
  }

  /**
   * Refuses a file this process cannot write: the database, a journal, WAL or shared-memory file
   * beside it, or its folder (where SQLite creates those). SQLite itself would open such a file
   * read-only without a word, and that connection would refuse every write even once the file is
   * writable again. Checked by the operating system's own access rules, so a {@code chmod a-w}
   * stops other users but not root, and an immutable file ({@code chattr +i}) stops everyone.
   *
   * @param file the database file
   * @throws StoreException if something SQLite must write is not writable ({@link
   *     StoreException#vendorCode()} is {@code SQLITE_READONLY}, 8)
   */
  public static void refuseUnwritable(Path file) {
    Path absolute = file.toAbsolutePath();
    Path folder = absolute.getParent();
    List<Path> written = new ArrayList<>();
    written.add(absolute);
    for (String suffix : SIDE_FILES) {
      written.add(absolute.resolveSibling(absolute.getFileName() + suffix));
    }
    for (Path p : written) {
      if (unwritable(p)) {
        throw readOnly(file, p + " is not writable");
      }
    }
    if (folder != null && Files.isDirectory(folder) && !Files.isWritable(folder)) {
      throw readOnly(
          file, "its folder " + folder + " is not writable (SQLite writes its journal there)");
    }
  }

  /**
   * Switches the file to the journal mode, retrying for up to {@code busyTimeout}. A new file
   * starts with a rollback journal; while another connection is switching it too, SQLite answers
   * {@code SQLITE_BUSY} at once instead of waiting {@code busy_timeout} (waiting there could
   * deadlock), so processes that open a new file together must retry. On a file already in the mode
   * it changes nothing. Leaving WAL needs the file to itself: while another process has it open in
   * WAL, SQLite keeps WAL, and the open fails rather than run in the mode not chosen.
   *
   * @param c the connection
   * @param wanted the mode, such as {@code wal} or {@code delete}
   * @param busyTimeout how long to retry while the file is busy
   * @throws SQLException if the mode cannot be set
   */
  public static void useJournalMode(Connection c, String wanted, Duration busyTimeout)
      throws SQLException {
    long deadline = System.nanoTime() + busyTimeout.toNanos();
    long pauseMillis = 1;
    while (true) {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("PRAGMA journal_mode = " + wanted)) {
        String mode = rs.next() ? rs.getString(1) : null;
        if (!wanted.equalsIgnoreCase(mode)) {
          throw new SQLException(
              "journal_mode is "
                  + mode
                  + ", not "
                  + wanted
                  + " (another process has the file open?)");
        }
        return;
      } catch (SQLException e) {
        if ((e.getErrorCode() & 0xFF) != SQLITE_BUSY) {
          throw e;
        }
        if (System.nanoTime() - deadline > 0) {
          throw new SQLException(
              "cannot set journal_mode "
                  + wanted
                  + " within busyTimeout (another connection"
                  + " holds the file"
                  + ("wal".equals(wanted) ? "" : " in another mode")
                  + "): "
                  + e.getMessage(),
              e.getSQLState(),
              e.getErrorCode(),
              e);
        }
        try {
          Thread.sleep(pauseMillis);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          e.addSuppressed(interrupted);
          throw e;
        }
        pauseMillis = Math.min(pauseMillis * 2, 50);
      }
    }
  }

  private static final String[] SIDE_FILES = {"-journal", "-wal", "-shm"};

  /**
   * Whether {@code p} exists and this process may not write it, asked in one call: another store
   * opening the same new file may create and delete its journal at any moment, and {@code
   * Files.exists} followed by {@code Files.isWritable} took a journal deleted between the two for
   * an unwritable one.
   */
  private static boolean unwritable(Path p) {
    try {
      p.getFileSystem().provider().checkAccess(p, AccessMode.WRITE);
      return false;
    } catch (NoSuchFileException missing) {
      return false; // SQLite creates it, in the folder checked below
    } catch (IOException denied) {
      return true;
    }
  }

  private static StoreException readOnly(Path file, String why) {
    return new StoreException(
        "cannot open the SQLite file " + file + " to write",
        "sqlite",
        new SQLException(why, null, SQLITE_READONLY));
  }

  private static final int SQLITE_READONLY = 8;

  /** SQLite's primary result code for "the database file is locked". */
  private static final int SQLITE_BUSY = 5;
}
