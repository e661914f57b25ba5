-- OnceOnly schema version 16 for PostgreSQL: the claims charged to queue rate limits, as in
-- SQLite's version 16. The claims of a rate-limited queue take a transaction lock on it first, so
-- two instances never both count the same room.

CREATE TABLE IF NOT EXISTS ${prefix}rate_claims (
  id            BIGSERIAL PRIMARY KEY,
  queue         TEXT COLLATE "C" NOT NULL,
  partition_key TEXT,
  claimed_at    TIMESTAMPTZ NOT NULL
);

CREATE INDEX IF NOT EXISTS ${prefix}rate_claims_window
  ON ${prefix}rate_claims (queue, claimed_at);

CREATE INDEX IF NOT EXISTS ${prefix}rate_claims_partition
  ON ${prefix}rate_claims (queue, partition_key, claimed_at);
