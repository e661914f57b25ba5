-- OnceOnly schema version 5 for SQLite: recurring schedules. A schedule's run of one slot is the
-- message <name>@<slot> on its queue; next_run moves on in the transaction that sends it, only
-- from the value read (compare and set), so instances firing at once send one run per slot.
-- next_run is NULL while paused, and for a fixed delay while its last run (last_key) is queued.

CREATE TABLE IF NOT EXISTS ${prefix}schedules (
  name         TEXT    NOT NULL PRIMARY KEY,
  queue        TEXT    NOT NULL,
  spec         TEXT    NOT NULL,
  catch_up     TEXT    NOT NULL,
  payload      TEXT    NOT NULL,
  anchor       INTEGER NOT NULL,
  next_run     INTEGER,
  last_slot    INTEGER,
  last_key     TEXT,
  paused       INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS ${prefix}schedules_due ON ${prefix}schedules (queue, next_run);
