-- OnceOnly schema version 7 for SQLite: keys kept taken for a period after their send, for the
-- queues whose Uniqueness declares one. A send of a key whose row has not expired answers
-- REPEATED or CONFLICT and writes nothing; expired rows are deleted in small batches by sends.

CREATE TABLE IF NOT EXISTS ${prefix}unique_keys (
  queue        TEXT    NOT NULL,
  message_key  TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  taken_until  INTEGER NOT NULL,
  PRIMARY KEY (queue, message_key)
);

CREATE INDEX IF NOT EXISTS ${prefix}unique_keys_until ON ${prefix}unique_keys (queue, taken_until);
