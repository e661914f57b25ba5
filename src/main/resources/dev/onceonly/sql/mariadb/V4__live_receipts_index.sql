-- OnceOnly schema version 4 for MariaDB. PostgreSQL and SQLite narrow the expiry index to live
-- receipts (a partial index); MariaDB has no partial index, so this only renames it.
CREATE INDEX IF NOT EXISTS ${prefix}receipts_live_expires_at
  ON ${prefix}receipts (expires_at);

DROP INDEX IF EXISTS ${prefix}receipts_expires_at ON ${prefix}receipts;
