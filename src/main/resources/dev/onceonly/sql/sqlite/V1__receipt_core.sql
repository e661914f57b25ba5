-- OnceOnly schema version 1 for SQLite: intents, receipts (with tombstones) and rejections.
-- ${prefix} is the table prefix (default "onceonly_"), the same placeholder Flyway uses.
-- Timestamps are epoch milliseconds (UTC).

CREATE TABLE IF NOT EXISTS ${prefix}intents (
  scope        TEXT    NOT NULL,
  intent_key   TEXT    NOT NULL,
  operation    TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  arguments    TEXT    NOT NULL,
  created_at   INTEGER NOT NULL,
  PRIMARY KEY (scope, intent_key)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS ${prefix}receipts (
  scope        TEXT    NOT NULL,
  intent_key   TEXT    NOT NULL,
  operation    TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  result       TEXT,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  forget_at    INTEGER NOT NULL,
  PRIMARY KEY (scope, intent_key)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS ${prefix}receipts_expires_at ON ${prefix}receipts (expires_at);

CREATE INDEX IF NOT EXISTS ${prefix}receipts_forget_at ON ${prefix}receipts (forget_at);

CREATE TABLE IF NOT EXISTS ${prefix}rejections (
  delivery_id  TEXT    NOT NULL PRIMARY KEY,
  reason       TEXT    NOT NULL,
  body         TEXT    NOT NULL,
  body_bytes   INTEGER NOT NULL,
  created_at   INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS ${prefix}rejections_created_at ON ${prefix}rejections (created_at);
