-- OnceOnly schema version 5 for PostgreSQL: recurring schedules. A schedule's run of one slot is
-- the message <name>@<slot> on its queue; next_run moves on in the transaction that sends it, only
-- from the value read (compare and set: a second instance's update waits for the first to commit,
-- then finds next_run moved and changes nothing), so instances firing at once send one run per
-- slot. next_run is NULL while paused, and for a fixed delay while its last run (last_key) is
-- queued.

CREATE TABLE IF NOT EXISTS ${prefix}schedules (
  name         TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  queue        TEXT COLLATE "C" NOT NULL,
  spec         TEXT        NOT NULL,
  catch_up     TEXT        NOT NULL,
  payload      TEXT        NOT NULL,
  anchor       TIMESTAMPTZ NOT NULL,
  next_run     TIMESTAMPTZ,
  last_slot    TIMESTAMPTZ,
  last_key     TEXT COLLATE "C",
  paused       INTEGER     NOT NULL DEFAULT 0,
  created_at   TIMESTAMPTZ NOT NULL,
  updated_at   TIMESTAMPTZ NOT NULL
);

CREATE INDEX IF NOT EXISTS ${prefix}schedules_due ON ${prefix}schedules (queue, next_run);
