package dev.onceonly.internal.db;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import org.sqlite.SQLiteConfig;

/**
 * Builds the JDBC URL of a SQLite file so that the driver opens exactly that file.
 *
 * <p>sqlite-jdbc reads everything after the first {@code ?} of a plain {@code jdbc:sqlite:PATH} as
 * settings: {@code app.db?cache_size=1} opens {@code app.db}, and a folder named {@code
 * data?cache_size=1} breaks the open. A {@code file:} URI whose path escapes every byte outside RFC
 * 3986's unreserved set has no {@code ?} or {@code #} left for the driver or SQLite to split on;
 * SQLite decodes the escapes back to the file's name (UTF-8 bytes for non-ASCII letters).
 */
public final class SqliteUrls {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private SqliteUrls() {}

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
    return config.createConnection(jdbcUrl(file));
  }

  /**
   * Returns {@code jdbc:sqlite:file:/...} for a file, its absolute path escaped.
   *
   * @param file the database file, relative to the working directory or absolute
   * @return the JDBC URL
   */
  public static String jdbcUrl(Path file) {
    String path = file.toAbsolutePath().toString().replace(File.separatorChar, '/');
    StringBuilder url = new StringBuilder("jdbc:sqlite:file:");
    if (!path.startsWith("/")) {
      url.append('/'); // C:/x on Windows: SQLite wants file:/C:/x
    }
    for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xFF;
      if (unreserved(c) || c == '/') {
        url.append((char) c);
      } else {
        url.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    return url.toString();
  }

  private static boolean unreserved(int c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '.'
        || c == '_'
        || c == '~';
  }
}
