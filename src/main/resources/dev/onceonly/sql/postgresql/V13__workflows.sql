-- OnceOnly schema version 13 for PostgreSQL: workflows, as in SQLite's version 13. A step's
-- completion locks its workflow's row first, so the completions of one run take turns and the
-- last dependency of a fan-in sends it once.

CREATE TABLE IF NOT EXISTS ${prefix}workflows (
  workflow_id  TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  name         TEXT COLLATE "C" NOT NULL,
  fingerprint  TEXT        NOT NULL,
  input        TEXT        NOT NULL,
  state        TEXT        NOT NULL,
  final_state  TEXT,
  completions  INTEGER     NOT NULL DEFAULT 0,
  error        TEXT,
  created_at   TIMESTAMPTZ NOT NULL,
  updated_at   TIMESTAMPTZ NOT NULL
);

CREATE INDEX IF NOT EXISTS ${prefix}workflows_state ON ${prefix}workflows (state, created_at);

CREATE TABLE IF NOT EXISTS ${prefix}workflow_steps (
  workflow_id     TEXT COLLATE "C" NOT NULL,
  step            TEXT COLLATE "C" NOT NULL,
  position        INTEGER     NOT NULL,
  queue           TEXT COLLATE "C" NOT NULL,
  depends_on      TEXT        NOT NULL,
  open_deps       INTEGER     NOT NULL,
  state           TEXT        NOT NULL,
  attempts        INTEGER     NOT NULL DEFAULT 0,
  result          TEXT,
  error           TEXT,
  completed_seq   INTEGER,
  signal_name     TEXT COLLATE "C",
  signal_payload  TEXT,
  comp_queue      TEXT COLLATE "C",
  comp_state      TEXT,
  comp_attempts   INTEGER     NOT NULL DEFAULT 0,
  comp_error      TEXT,
  updated_at      TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (workflow_id, step)
);
