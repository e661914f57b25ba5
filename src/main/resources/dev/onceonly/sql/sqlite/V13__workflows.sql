-- OnceOnly schema version 13 for SQLite: workflows. A workflow is a run of a definition that lives
-- in code: one row per run and one per step, holding the state the steps' completions move on.
-- open_deps counts a step's dependencies not yet settled; a step is sent when it reaches zero
-- (and its signal, if it awaits one, arrived). completed_seq orders completions, so that the
-- compensations run in reverse order of completion. depends_on is the definition's dependencies
-- as JSON ([{"step": "reserve", "evenIfFailed": false}]), kept with the run so that a run goes on
-- with the shape it started with.

CREATE TABLE IF NOT EXISTS ${prefix}workflows (
  workflow_id  TEXT    NOT NULL PRIMARY KEY,
  name         TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  input        TEXT    NOT NULL,
  state        TEXT    NOT NULL,
  final_state  TEXT,
  completions  INTEGER NOT NULL DEFAULT 0,
  error        TEXT,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS ${prefix}workflows_state ON ${prefix}workflows (state, created_at);

CREATE TABLE IF NOT EXISTS ${prefix}workflow_steps (
  workflow_id     TEXT    NOT NULL,
  step            TEXT    NOT NULL,
  position        INTEGER NOT NULL,
  queue           TEXT    NOT NULL,
  depends_on      TEXT    NOT NULL,
  open_deps       INTEGER NOT NULL,
  state           TEXT    NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  result          TEXT,
  error           TEXT,
  completed_seq   INTEGER,
  signal_name     TEXT,
  signal_payload  TEXT,
  comp_queue      TEXT,
  comp_state      TEXT,
  comp_attempts   INTEGER NOT NULL DEFAULT 0,
  comp_error      TEXT,
  updated_at      INTEGER NOT NULL,
  PRIMARY KEY (workflow_id, step)
);
