package dev.onceonly.internal.dialect;

import dev.onceonly.ServerSettingException;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The MariaDB settings under which the library's statements would fail or store something else than
 * they were given, refused with {@link ServerSettingException}: at open (one query) the binary
 * log's format, {@code sql_mode} and the session's character sets, and on the first use of every
 * other connection the library opens or joins (one query per connection, none per call after) the
 * character sets again, which a pool's init SQL or a caller may change.
 */
final class MariaDbSettings {
  private static final String ID = Dialect.MARIADB.id();

  /**
   * The physical connections whose session was found in {@code utf8mb4}, weakly: a connection
   * closed by its pool goes with it.
   */
  private static final Map<Connection, Boolean> CHECKED =
      Collections.synchronizedMap(new WeakHashMap<>());

  private MariaDbSettings() {}

  /**
   * Checks what a store needs of the server and of this session, once when it opens, and returns
   * the server's {@code max_allowed_packet} in bytes.
   */
  static long atOpen(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT @@log_bin, @@binlog_format, @@sql_mode, @@max_allowed_packet, "
                    + CHARSETS);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      String format = rs.getString(2);
      if (rs.getInt(1) == 1 && "STATEMENT".equalsIgnoreCase(format)) {
        throw new ServerSettingException(
            "the binary log is in binlog_format=STATEMENT, in which InnoDB refuses every write of a"
                + " READ COMMITTED transaction (error 1665), the library's isolation; set"
                + " binlog_format=ROW (or MIXED) in the server's configuration, or for the"
                + " library's user's sessions",
            ID,
            "binlog_format",
            format);
      }
      String mode = rs.getString(3);
      if (mode != null
          && java.util.Arrays.asList(mode.toUpperCase(Locale.ROOT).split(",")).contains("ORACLE")) {
        throw new ServerSettingException(
            "the session runs with sql_mode="
                + mode
                + ": ORACLE mode reads MariaDB's own SQL otherwise (BODY is reserved, blocks"
                + " differ), and the library's scripts and statements are written in it; give"
                + " the library's connections a sql_mode without ORACLE (the server's sql_mode,"
                + " the pool's init SQL, or the driver's sessionVariables)",
            ID,
            "sql_mode",
            mode);
      }
      charsets(rs, 5);
      return rs.getLong(4);
    }
  }

  /** Checks the session's character sets on the first use of the physical connection under c. */
  static void session(Connection c) throws SQLException {
    Connection physical = physical(c);
    if (CHECKED.containsKey(physical)) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT " + CHARSETS);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      charsets(rs, 1);
    }
    CHECKED.put(physical, Boolean.TRUE);
  }

  private static final String CHARSETS =
      "@@character_set_client, @@character_set_connection, @@character_set_results";

  private static final String[] CHARSET_NAMES = {
    "character_set_client", "character_set_connection", "character_set_results"
  };

  /**
   * Refuses a session that does not speak {@code utf8mb4} both ways: the driver sends UTF-8, and a
   * server reading it as {@code latin1} stores other characters or, where a byte has none, cuts the
   * value short (an {@code INSERT IGNORE} turns strict mode's error into a warning), and {@code
   * utf8mb3} has no four-byte characters (they come back as {@code ????}). A {@code NULL} {@code
   * character_set_results} sends results unconverted, in the columns' {@code utf8mb4}.
   */
  private static void charsets(ResultSet rs, int first) throws SQLException {
    for (int i = 0; i < CHARSET_NAMES.length; i++) {
      String value = rs.getString(first + i);
      boolean results = i == CHARSET_NAMES.length - 1;
      if (value == null && results || "utf8mb4".equalsIgnoreCase(value)) {
        continue;
      }
      throw new ServerSettingException(
          "the session's "
              + CHARSET_NAMES[i]
              + " is "
              + value
              + ", not utf8mb4: text would be stored converted, cut short or as '?' with no"
              + " error; leave the driver's utf8mb4 in place (no SET NAMES or SET CHARACTER SET"
              + " other than utf8mb4 in the pool's init SQL or on a joined connection)",
          ID,
          CHARSET_NAMES[i],
          value);
    }
  }

  /** The driver's connection under a pool's proxy, or {@code c} where it does not say. */
  private static Connection physical(Connection c) {
    try {
      Connection inner = c.unwrap(Connection.class);
      return inner != null ? inner : c;
    } catch (SQLException e) {
      return c;
    }
  }
}
