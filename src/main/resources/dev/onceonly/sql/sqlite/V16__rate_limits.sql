-- OnceOnly schema version 16 for SQLite: the claims charged to queue rate limits. A claim of a
-- queue with a rate limit writes one row per message it leased, in its own transaction, with the
-- claim's time and the message's partition (null for none); the limit counts the rows of the last
-- window (a sliding window), so no counter is held from one claim to the next. Rows older than the
-- window are deleted by later claims of the queue.

CREATE TABLE IF NOT EXISTS ${prefix}rate_claims (
  id            INTEGER PRIMARY KEY,
  queue         TEXT    NOT NULL,
  partition_key TEXT,
  claimed_at    INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS ${prefix}rate_claims_window
  ON ${prefix}rate_claims (queue, claimed_at);

CREATE INDEX IF NOT EXISTS ${prefix}rate_claims_partition
  ON ${prefix}rate_claims (queue, partition_key, claimed_at);
