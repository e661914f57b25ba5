package dev.onceonly;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether the server a store writes to keeps what it answers, read from the server's own settings:
 * through a crash of the server ({@code fsync} and {@code synchronous_commit} on PostgreSQL, {@code
 * synchronous} on SQLite, {@code innodb_flush_log_at_trx_commit} on MariaDB) and through a failover
 * to a standby (a synchronous standby that confirmed every commit before it was answered).
 *
 * @param crashSafe whether a commit that was answered survives a crash of the server
 * @param failoverSafe whether a commit that was answered is also on a synchronous standby, so that
 *     a failover to it loses nothing; false where no synchronous standby is configured and
 *     connected
 * @param synchronousStandbys how many standbys confirm commits synchronously right now, or -1 where
 *     the server does not let this role see it (PostgreSQL's {@code pg_stat_replication} without
 *     {@code pg_read_all_stats})
 * @param settings the settings read, by name, as the server spells their values
 * @param risks what may be lost, for people, one sentence each; empty when nothing is at risk
 */
public record Durability(
    boolean crashSafe,
    boolean failoverSafe,
    int synchronousStandbys,
    Map<String, String> settings,
    List<String> risks) {
  /**
   * Checks and copies the fields.
   *
   * @param crashSafe whether an answered commit survives a crash of the server
   * @param failoverSafe whether an answered commit survives a failover
   * @param synchronousStandbys synchronous standbys, or -1 when not visible
   * @param settings the settings read
   * @param risks what may be lost
   */
  public Durability {
    if (synchronousStandbys < -1) {
      throw new IllegalArgumentException("synchronousStandbys must be >= -1");
    }
    settings = Map.copyOf(Objects.requireNonNull(settings, "settings"));
    risks = List.copyOf(Objects.requireNonNull(risks, "risks"));
  }
}
