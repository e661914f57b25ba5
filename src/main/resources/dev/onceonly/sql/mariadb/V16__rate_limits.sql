-- OnceOnly schema version 16 for MariaDB: the claims charged to queue rate limits, as in SQLite's
-- version 16. The claims of a rate-limited queue lock its row of key_locks first, so two instances
-- never both count the same room.

CREATE TABLE IF NOT EXISTS ${prefix}rate_claims (
  id            BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  queue         VARCHAR(255) NOT NULL,
  partition_key VARCHAR(255),
  claimed_at    DATETIME(6)  NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS ${prefix}rate_claims_window
  ON ${prefix}rate_claims (queue, claimed_at);

CREATE INDEX IF NOT EXISTS ${prefix}rate_claims_partition
  ON ${prefix}rate_claims (queue, partition_key, claimed_at);
