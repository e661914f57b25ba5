-- OnceOnly schema version 18 for SQLite: each failed attempt's error, kept per message. A message
-- is named by its queue and key, as its dead letter is, so the history follows a message into the
-- dead letters and back through a requeue. seq numbers the entries of one key from 1, in the
-- order they failed; the queue keeps the newest of them only (a bound set on the builder) and
-- deletes the rest as it writes a new one. The primary key is the index that reads one
-- message's history. Rows leave with their message's completion or withdrawal, and with its dead
-- letter's deletion or purge. No data is touched.

CREATE TABLE IF NOT EXISTS ${prefix}attempt_errors (
  queue        TEXT    NOT NULL,
  message_key  TEXT    NOT NULL,
  seq          INTEGER NOT NULL,
  attempt      INTEGER NOT NULL,
  lease_number INTEGER NOT NULL,
  failed_at    INTEGER NOT NULL,
  error_class  TEXT,
  message      TEXT    NOT NULL,
  trace        TEXT,
  PRIMARY KEY (queue, message_key, seq)
);
