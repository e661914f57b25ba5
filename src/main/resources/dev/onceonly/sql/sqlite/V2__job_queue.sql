-- OnceOnly schema version 2 for SQLite: the job queue, its dead letters and large payloads.
-- A message is due when deliver_at <= now; claiming it moves deliver_at to the end of the lease
-- and increments fence, so an expired lease makes it due again and a stale holder is fenced off.

CREATE TABLE IF NOT EXISTS ${prefix}messages (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  queue        TEXT    NOT NULL,
  message_key  TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  payload      TEXT    NOT NULL,
  payload_ref  TEXT,
  deliver_at   INTEGER NOT NULL,
  attempts     INTEGER NOT NULL DEFAULT 0,
  fence        INTEGER NOT NULL DEFAULT 0,
  first_claimed_at INTEGER,
  last_error   TEXT,
  created_at   INTEGER NOT NULL,
  UNIQUE (queue, message_key)
);

CREATE INDEX IF NOT EXISTS ${prefix}messages_due ON ${prefix}messages (queue, deliver_at, id);

CREATE TABLE IF NOT EXISTS ${prefix}dead_letters (
  queue        TEXT    NOT NULL,
  message_key  TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  payload      TEXT    NOT NULL,
  payload_ref  TEXT,
  attempts     INTEGER NOT NULL,
  last_error   TEXT,
  created_at   INTEGER NOT NULL,
  dead_at      INTEGER NOT NULL,
  PRIMARY KEY (queue, message_key)
);

CREATE TABLE IF NOT EXISTS ${prefix}payloads (
  payload_ref  TEXT    NOT NULL PRIMARY KEY,
  body         BLOB    NOT NULL,
  created_at   INTEGER NOT NULL
);
