-- OnceOnly schema version 5 for MariaDB: recurring schedules.

CREATE TABLE IF NOT EXISTS ${prefix}schedules (
  name         VARCHAR(255) NOT NULL PRIMARY KEY,
  queue        VARCHAR(255) NOT NULL,
  spec         LONGTEXT     NOT NULL,
  catch_up     VARCHAR(32)  NOT NULL,
  payload      LONGTEXT     NOT NULL,
  anchor       DATETIME(6)  NOT NULL,
  next_run     DATETIME(6),
  last_slot    DATETIME(6),
  last_key     LONGTEXT,
  paused       INTEGER      NOT NULL DEFAULT 0,
  created_at   DATETIME(6)  NOT NULL,
  updated_at   DATETIME(6)  NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS ${prefix}schedules_due ON ${prefix}schedules (queue, next_run);
