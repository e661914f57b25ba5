package dev.onceonly.internal.db;

import dev.onceonly.sql.SqliteUrls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import org.sqlite.SQLiteConfig;

/** Opens a SQLite file by its exact name ({@link SqliteUrls}), naming a missing folder. */
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
}
