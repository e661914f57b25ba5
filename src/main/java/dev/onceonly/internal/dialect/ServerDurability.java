package dev.onceonly.internal.dialect;

import dev.onceonly.Durability;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads, from each server's own settings, whether it keeps what it answers: the {@link
 * SqlDialect#durability} of the three dialects, kept together because they answer one question.
 */
final class ServerDurability {
  /** The {@code synchronous_commit} values with which a commit waits for a synchronous standby. */
  private static final Set<String> WAITS_FOR_STANDBY = Set.of("on", "remote_write", "remote_apply");

  private ServerDurability() {}

  /**
   * PostgreSQL: {@code fsync} and {@code synchronous_commit} of this session (a role or database
   * may change them) for the server's own crash; {@code synchronous_standby_names} with a
   * synchronous commit level for a failover (a commit is then answered only after a standby
   * confirmed it, so none answered is lost; Patroni's {@code synchronous_mode} empties the names
   * when no standby is left, and then commits are at risk again); {@code pg_stat_replication} for
   * how many standbys confirm right now.
   */
  static Durability postgres(Connection c) throws SQLException {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String name : List.of("fsync", "synchronous_commit", "synchronous_standby_names")) {
      settings.put(name, one(c, "SELECT current_setting('" + name + "')"));
    }
    int standbys =
        Integer.parseInt(
            one(
                c,
                "SELECT CASE WHEN count(*) FILTER (WHERE sync_state IS NULL) > 0 THEN -1"
                    + " ELSE count(*) FILTER (WHERE sync_state IN ('sync', 'quorum')) END"
                    + " FROM pg_stat_replication"));
    boolean fsync = "on".equals(settings.get("fsync"));
    String commit = settings.get("synchronous_commit").toLowerCase(Locale.ROOT);
    boolean crashSafe = fsync && !"off".equals(commit);
    boolean named = !settings.get("synchronous_standby_names").isBlank();
    boolean failoverSafe = crashSafe && named && WAITS_FOR_STANDBY.contains(commit);
    List<String> risks = new ArrayList<>();
    if (!fsync) {
      risks.add(
          "fsync is off: an operating system crash or a power loss may lose or corrupt commits"
              + " already answered");
    }
    if ("off".equals(commit)) {
      risks.add(
          "synchronous_commit is off: a crash of the server loses the last commits it already"
              + " answered (receipts, sends, acknowledgements)");
    }
    if (!failoverSafe) {
      risks.add(
          (named
                  ? "synchronous_commit is " + commit + ", so commits do not wait for a standby"
                  : "no synchronous standby (synchronous_standby_names is empty)")
              + ": a failover to a standby may lose receipts already answered");
    }
    return new Durability(crashSafe, failoverSafe, standbys, settings, risks);
  }

  /**
   * SQLite: {@code synchronous} FULL or EXTRA keeps every answered commit through a power loss;
   * NORMAL in WAL mode keeps them through a crash of the process only. There is no standby.
   */
  static Durability sqlite(Connection c) throws SQLException {
    int level = Integer.parseInt(one(c, "PRAGMA synchronous"));
    String name = level >= 3 ? "EXTRA" : level == 2 ? "FULL" : level == 1 ? "NORMAL" : "OFF";
    boolean crashSafe = level >= 2;
    List<String> risks =
        crashSafe
            ? List.of()
            : List.of(
                "synchronous is "
                    + name
                    + ": an operating system crash or a power loss may lose the last commits"
                    + " already answered");
    return new Durability(crashSafe, false, 0, Map.of("synchronous", name), risks);
  }

  /**
   * MariaDB: {@code innodb_flush_log_at_trx_commit} 1 keeps every answered commit through a crash.
   * Its semi-synchronous replication falls back to asynchronous after {@code
   * rpl_semi_sync_master_timeout}, so no setting makes a failover safe, and none is claimed.
   */
  static Durability mariadb(Connection c) throws SQLException {
    String flush = one(c, "SELECT @@innodb_flush_log_at_trx_commit");
    boolean crashSafe = "1".equals(flush);
    List<String> risks = new ArrayList<>();
    if (!crashSafe) {
      risks.add(
          "innodb_flush_log_at_trx_commit is "
              + flush
              + ": a crash may lose the last commits already answered");
    }
    risks.add(
        "replication is asynchronous, or semi-synchronous with a fallback to asynchronous: a"
            + " failover may lose receipts already answered");
    return new Durability(
        crashSafe, false, 0, Map.of("innodb_flush_log_at_trx_commit", flush), risks);
  }

  private static String one(Connection c, String query) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(query);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }
}
