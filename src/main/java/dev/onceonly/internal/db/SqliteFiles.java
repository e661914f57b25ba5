package dev.onceonly.internal.db;

import dev.onceonly.StoreException;
import dev.onceonly.sql.SqliteUrls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
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
      if (Files.exists(p) && !Files.isWritable(p)) {
        throw readOnly(file, p + " is not writable");
      }
    }
    if (folder != null && Files.isDirectory(folder) && !Files.isWritable(folder)) {
      throw readOnly(
          file, "its folder " + folder + " is not writable (SQLite writes its journal there)");
    }
  }

  private static final String[] SIDE_FILES = {"-journal", "-wal", "-shm"};

  private static StoreException readOnly(Path file, String why) {
    return new StoreException(
        "cannot open the SQLite file " + file + " to write",
        "sqlite",
        new SQLException(why, null, SQLITE_READONLY));
  }

  private static final int SQLITE_READONLY = 8;
}
