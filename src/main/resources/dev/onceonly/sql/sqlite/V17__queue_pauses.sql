-- OnceOnly schema version 17 for SQLite: the paused queues. A row per paused queue, with who paused
-- it, when and why; the claims of every instance lease nothing from a queue that has a row here
-- (checked in the claim's own statement), and deleting the row resumes it. Work already leased is
-- settled as usual.

CREATE TABLE IF NOT EXISTS ${prefix}queue_pauses (
  queue     TEXT    NOT NULL PRIMARY KEY,
  paused_by TEXT    NOT NULL,
  paused_at INTEGER NOT NULL,
  reason    TEXT
);
