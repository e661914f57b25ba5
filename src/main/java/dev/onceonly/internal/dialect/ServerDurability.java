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
   * MariaDB: {@code innodb_flush_log_at_trx_commit} 1 or 3 (both write and flush the redo log at
   * every commit) keeps every answered commit through a crash. Replicas: none where the binary log
   * is off; otherwise the binary log dump threads, which only a user with {@code PROCESS} sees all
   * of (else unknown). Semi-synchronous replication falls back to asynchronous after {@code
   * rpl_semi_sync_master_timeout}, so no setting makes a failover safe, and none is claimed; a risk
   * is named only where there is a replica to fail over to, or one may be hidden.
   */
  static Durability mariadb(Connection c) throws SQLException {
    Map<String, String> settings = new LinkedHashMap<>();
    String flush = one(c, "SELECT @@innodb_flush_log_at_trx_commit");
    settings.put("innodb_flush_log_at_trx_commit", flush);
    boolean crashSafe = "1".equals(flush) || "3".equals(flush);
    List<String> risks = new ArrayList<>();
    if (!crashSafe) {
      risks.add(
          "innodb_flush_log_at_trx_commit is "
              + flush
              + ": a crash may lose the last commits already answered");
    }
    boolean binlog = "1".equals(one(c, "SELECT @@log_bin"));
    settings.put("log_bin", binlog ? "ON" : "OFF");
    int replicas = binlog ? replicas(c) : 0;
    settings.put("replicas", replicas < 0 ? "unknown (no PROCESS privilege)" : "" + replicas);
    int semiSync = 0;
    if (binlog) {
      settings.put("sync_binlog", one(c, "SELECT @@sync_binlog"));
      semiSync = semiSyncReplicas(c, settings);
    }
    if (replicas != 0) {
      risks.add(replicationRisk(replicas, semiSync, settings));
    }
    return new Durability(crashSafe, false, replicas < 0 ? -1 : semiSync, settings, risks);
  }

  private static String replicationRisk(int replicas, int semiSync, Map<String, String> settings) {
    String who =
        replicas < 0
            ? "this user cannot see the replicas (the PROCESS privilege shows them); if there are"
                + " any, replication"
            : replicas + (replicas == 1 ? " replica, on" : " replicas, on");
    String how =
        semiSync > 0
            ? " semi-synchronous replication ("
                + semiSync
                + " acknowledging), which falls back to asynchronous after"
                + " rpl_semi_sync_master_timeout="
                + settings.get("rpl_semi_sync_master_timeout")
                + " ms without an acknowledgement"
            : replicas < 0
                ? " is asynchronous or semi-synchronous with a fallback to asynchronous"
                : " asynchronous replication";
    return who + how + ": a failover to a replica may lose receipts already answered";
  }

  /** Binary log dump threads, or -1 where this user cannot see other users' threads. */
  private static int replicas(Connection c) throws SQLException {
    boolean seesAll =
        Integer.parseInt(
                one(
                    c,
                    "SELECT COUNT(*) FROM information_schema.user_privileges"
                        + " WHERE privilege_type IN ('PROCESS', 'SUPER')"))
            > 0;
    int dumps =
        Integer.parseInt(
            one(
                c,
                "SELECT COUNT(*) FROM information_schema.processlist"
                    + " WHERE command LIKE 'Binlog Dump%'"));
    return dumps == 0 && !seesAll ? -1 : dumps;
  }

  /** The replicas acknowledging semi-synchronously right now (0 where it is off). */
  private static int semiSyncReplicas(Connection c, Map<String, String> settings)
      throws SQLException {
    String enabled = one(c, "SELECT @@rpl_semi_sync_master_enabled");
    settings.put("rpl_semi_sync_master_enabled", "1".equals(enabled) ? "ON" : "OFF");
    if (!"1".equals(enabled)) {
      return 0;
    }
    settings.put("rpl_semi_sync_master_timeout", one(c, "SELECT @@rpl_semi_sync_master_timeout"));
    String status = status(c, "RPL_SEMI_SYNC_MASTER_STATUS");
    String clients = status(c, "RPL_SEMI_SYNC_MASTER_CLIENTS");
    settings.put("Rpl_semi_sync_master_status", status);
    return "ON".equalsIgnoreCase(status) && clients != null ? Integer.parseInt(clients) : 0;
  }

  private static String status(Connection c, String name) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT variable_value FROM information_schema.global_status"
                + " WHERE variable_name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  private static String one(Connection c, String query) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(query);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }
}
