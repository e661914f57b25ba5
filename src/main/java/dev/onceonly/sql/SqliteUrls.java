package dev.onceonly.sql;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Builds the JDBC URL of a SQLite file so that the driver opens exactly that file.
 *
 * <p>sqlite-jdbc reads everything after the first {@code ?} of a plain {@code jdbc:sqlite:PATH} as
 * settings: {@code app.db?cache_size=1} opens {@code app.db}, and a folder named {@code
 * data?cache_size=1} breaks the open. A {@code file:} URI whose path escapes every byte outside RFC
 * 3986's unreserved set has no {@code ?} or {@code #} left for the driver or SQLite to split on;
 * SQLite decodes the escapes back to the file's name (UTF-8 bytes for non-ASCII letters).
 *
 * <p>OnceOnly opens its SQLite files by this URL. Use it for the application's own connections to
 * the same file (its business tables, a pool for {@code OnceOnlyBuilder.dataSource}), so that both
 * reach the very same file whatever characters its name holds:
 *
 * <pre>{@code
 * try (Connection c = DriverManager.getConnection(SqliteUrls.jdbcUrl(Path.of("data", "app.db")))) {
 *   ...
 * }
 * }</pre>
 */
public final class SqliteUrls {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private SqliteUrls() {}

  /**
   * Returns {@code jdbc:sqlite:file:/...} for a file, its absolute path escaped. Settings the
   * driver reads from the URL cannot be appended to it; pass them as connection properties.
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
