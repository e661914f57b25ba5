-- OnceOnly schema version 7 for MariaDB: message keys kept taken after their message is gone.

CREATE TABLE IF NOT EXISTS ${prefix}unique_keys (
  queue        VARCHAR(255) NOT NULL,
  message_key  VARCHAR(512) NOT NULL,
  fingerprint  VARCHAR(255) NOT NULL,
  taken_until  DATETIME(6)  NOT NULL,
  PRIMARY KEY (queue, message_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS ${prefix}unique_keys_until ON ${prefix}unique_keys (queue, taken_until);
