-- OnceOnly schema version 2 for MariaDB: the job queue, its dead letters and large payloads.

CREATE TABLE IF NOT EXISTS ${prefix}messages (
  id           BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  queue        VARCHAR(255) NOT NULL,
  message_key  VARCHAR(512) NOT NULL,
  fingerprint  VARCHAR(255) NOT NULL,
  payload      LONGTEXT     NOT NULL,
  payload_ref  VARCHAR(255),
  deliver_at   DATETIME(6)  NOT NULL,
  attempts     INTEGER      NOT NULL DEFAULT 0,
  fence        BIGINT       NOT NULL DEFAULT 0,
  first_claimed_at DATETIME(6),
  last_error   LONGTEXT,
  created_at   DATETIME(6)  NOT NULL,
  UNIQUE (queue, message_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS ${prefix}messages_due ON ${prefix}messages (queue, deliver_at, id);

CREATE TABLE IF NOT EXISTS ${prefix}dead_letters (
  queue        VARCHAR(255) NOT NULL,
  message_key  VARCHAR(512) NOT NULL,
  fingerprint  VARCHAR(255) NOT NULL,
  payload      LONGTEXT     NOT NULL,
  payload_ref  VARCHAR(255),
  attempts     INTEGER      NOT NULL,
  last_error   LONGTEXT,
  created_at   DATETIME(6)  NOT NULL,
  dead_at      DATETIME(6)  NOT NULL,
  PRIMARY KEY (queue, message_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS ${prefix}payloads (
  payload_ref  VARCHAR(255) NOT NULL PRIMARY KEY,
  body         LONGBLOB     NOT NULL,
  created_at   DATETIME(6)  NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
