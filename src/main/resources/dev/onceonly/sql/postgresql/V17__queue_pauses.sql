-- OnceOnly schema version 17 for PostgreSQL: the paused queues, as in SQLite's version 17.

CREATE TABLE IF NOT EXISTS ${prefix}queue_pauses (
  queue     TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  paused_by TEXT NOT NULL,
  paused_at TIMESTAMPTZ NOT NULL,
  reason    TEXT
);
