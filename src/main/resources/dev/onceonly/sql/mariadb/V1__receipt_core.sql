-- OnceOnly schema version 1 for MariaDB: intents, receipts (with tombstones), rejections, and the
-- rows that key locks are taken on. ${prefix} is the table prefix (default "onceonly_").
-- Timestamps are DATETIME(6) holding UTC. Every text column is utf8mb4 in utf8mb4_nopad_bin, so
-- keys compare and sort bytewise as on SQLite and PostgreSQL ("C"): keys that differ only in case,
-- accents or trailing spaces stay distinct. Key columns are VARCHAR(255): InnoDB indexes at most
-- 3,072 bytes, four per character; the library refuses longer keys on MariaDB.
-- Every statement may run again after a cut half-way (MariaDB commits at each DDL statement).

CREATE TABLE IF NOT EXISTS ${prefix}intents (
  scope        VARCHAR(255) NOT NULL,
  intent_key   VARCHAR(255) NOT NULL,
  operation    VARCHAR(255) NOT NULL,
  fingerprint  VARCHAR(255) NOT NULL,
  arguments    LONGTEXT     NOT NULL,
  created_at   DATETIME(6)  NOT NULL,
  PRIMARY KEY (scope, intent_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE IF NOT EXISTS ${prefix}receipts (
  scope        VARCHAR(255) NOT NULL,
  intent_key   VARCHAR(255) NOT NULL,
  operation    VARCHAR(255) NOT NULL,
  fingerprint  VARCHAR(255) NOT NULL,
  result       LONGTEXT,
  created_at   DATETIME(6)  NOT NULL,
  expires_at   DATETIME(6)  NOT NULL,
  forget_at    DATETIME(6)  NOT NULL,
  PRIMARY KEY (scope, intent_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS ${prefix}receipts_expires_at ON ${prefix}receipts (expires_at);

CREATE INDEX IF NOT EXISTS ${prefix}receipts_forget_at ON ${prefix}receipts (forget_at);

CREATE TABLE IF NOT EXISTS ${prefix}rejections (
  delivery_id  VARCHAR(255) NOT NULL PRIMARY KEY,
  reason       LONGTEXT     NOT NULL,
  body         LONGTEXT     NOT NULL,
  body_bytes   BIGINT       NOT NULL,
  created_at   DATETIME(6)  NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS ${prefix}rejections_created_at ON ${prefix}rejections (created_at);

-- MariaDB has no transaction-scoped advisory lock: a step on a key locks one of these 16,384 rows
-- (SELECT ... FOR UPDATE on the bucket of the key's hash) until its transaction ends. The rows are
-- made here once, so taking a lock writes nothing; two keys sharing a bucket only wait for each
-- other. INSERT IGNORE: the statement may run again after a cut.
CREATE TABLE IF NOT EXISTS ${prefix}key_locks (
  bucket       INT          NOT NULL PRIMARY KEY
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

INSERT IGNORE INTO ${prefix}key_locks (bucket)
  SELECT a.i + 16 * b.i + 256 * c.i + 4096 * d.i
  FROM (SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10 UNION ALL SELECT 11 UNION ALL SELECT 12 UNION ALL SELECT 13 UNION ALL SELECT 14 UNION ALL SELECT 15) a
  CROSS JOIN (SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10 UNION ALL SELECT 11 UNION ALL SELECT 12 UNION ALL SELECT 13 UNION ALL SELECT 14 UNION ALL SELECT 15) b
  CROSS JOIN (SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10 UNION ALL SELECT 11 UNION ALL SELECT 12 UNION ALL SELECT 13 UNION ALL SELECT 14 UNION ALL SELECT 15) c
  CROSS JOIN (SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) d;
