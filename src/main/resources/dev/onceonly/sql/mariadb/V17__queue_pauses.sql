-- OnceOnly schema version 17 for MariaDB: the paused queues, as in SQLite's version 17.

CREATE TABLE IF NOT EXISTS ${prefix}queue_pauses (
  queue     VARCHAR(255)  NOT NULL PRIMARY KEY,
  paused_by VARCHAR(255)  NOT NULL,
  paused_at DATETIME(6)   NOT NULL,
  reason    VARCHAR(1000)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
