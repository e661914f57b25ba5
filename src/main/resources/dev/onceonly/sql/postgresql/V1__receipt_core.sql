-- OnceOnly schema version 1 for PostgreSQL: intents, receipts (with tombstones) and rejections.
-- ${prefix} is the table prefix (default "onceonly_"), the same placeholder Flyway uses.
-- Timestamps are timestamptz. Text keys are COLLATE "C" so that they compare and sort bytewise,
-- as on SQLite: both dialects page through keys in the same order whatever the database locale.

CREATE TABLE IF NOT EXISTS ${prefix}intents (
  scope        TEXT COLLATE "C" NOT NULL,
  intent_key   TEXT COLLATE "C" NOT NULL,
  operation    TEXT        NOT NULL,
  fingerprint  TEXT        NOT NULL,
  arguments    TEXT        NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (scope, intent_key)
);

CREATE TABLE IF NOT EXISTS ${prefix}receipts (
  scope        TEXT COLLATE "C" NOT NULL,
  intent_key   TEXT COLLATE "C" NOT NULL,
  operation    TEXT        NOT NULL,
  fingerprint  TEXT        NOT NULL,
  result       TEXT,
  created_at   TIMESTAMPTZ NOT NULL,
  expires_at   TIMESTAMPTZ NOT NULL,
  forget_at    TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (scope, intent_key)
);

CREATE INDEX IF NOT EXISTS ${prefix}receipts_expires_at ON ${prefix}receipts (expires_at);

CREATE INDEX IF NOT EXISTS ${prefix}receipts_forget_at ON ${prefix}receipts (forget_at);

CREATE TABLE IF NOT EXISTS ${prefix}rejections (
  delivery_id  TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  reason       TEXT        NOT NULL,
  body         TEXT        NOT NULL,
  body_bytes   BIGINT      NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL
);

CREATE INDEX IF NOT EXISTS ${prefix}rejections_created_at ON ${prefix}rejections (created_at);
