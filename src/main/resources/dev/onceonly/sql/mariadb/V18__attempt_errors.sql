-- OnceOnly schema version 18 for MariaDB: each failed attempt's error, kept per message, as in
-- SQLite's version 18. An entry is written after the fenced update or delete that records the
-- failure, which holds the message's row lock, so two writers never number the same entry.

CREATE TABLE IF NOT EXISTS ${prefix}attempt_errors (
  queue        VARCHAR(255) NOT NULL,
  message_key  VARCHAR(512) NOT NULL,
  seq          INTEGER      NOT NULL,
  attempt      INTEGER      NOT NULL,
  lease_number BIGINT       NOT NULL,
  failed_at    DATETIME(6)  NOT NULL,
  error_class  TEXT,
  message      TEXT         NOT NULL,
  trace        TEXT,
  PRIMARY KEY (queue, message_key, seq)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
