-- OnceOnly schema version 13 for MariaDB: workflows, as in SQLite's version 13.

CREATE TABLE IF NOT EXISTS ${prefix}workflows (
  workflow_id  VARCHAR(255) NOT NULL PRIMARY KEY,
  name         VARCHAR(255) NOT NULL,
  fingerprint  VARCHAR(255) NOT NULL,
  input        LONGTEXT     NOT NULL,
  state        VARCHAR(20)  NOT NULL,
  final_state  VARCHAR(20),
  completions  INTEGER      NOT NULL DEFAULT 0,
  error        LONGTEXT,
  created_at   DATETIME(6)  NOT NULL,
  updated_at   DATETIME(6)  NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS ${prefix}workflows_state ON ${prefix}workflows (state, created_at);

CREATE TABLE IF NOT EXISTS ${prefix}workflow_steps (
  workflow_id     VARCHAR(255) NOT NULL,
  step            VARCHAR(64)  NOT NULL,
  position        INTEGER      NOT NULL,
  queue           VARCHAR(255) NOT NULL,
  depends_on      LONGTEXT     NOT NULL,
  open_deps       INTEGER      NOT NULL,
  state           VARCHAR(20)  NOT NULL,
  attempts        INTEGER      NOT NULL DEFAULT 0,
  result          LONGTEXT,
  error           LONGTEXT,
  completed_seq   INTEGER,
  signal_name     VARCHAR(64),
  signal_payload  LONGTEXT,
  comp_queue      VARCHAR(255),
  comp_state      VARCHAR(20),
  comp_attempts   INTEGER      NOT NULL DEFAULT 0,
  comp_error      LONGTEXT,
  updated_at      DATETIME(6)  NOT NULL,
  PRIMARY KEY (workflow_id, step)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
