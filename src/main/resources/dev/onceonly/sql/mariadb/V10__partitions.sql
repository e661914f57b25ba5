-- OnceOnly schema version 10 for MariaDB: message partitions.

ALTER TABLE ${prefix}messages ADD COLUMN IF NOT EXISTS partition_key VARCHAR(255);

ALTER TABLE ${prefix}dead_letters ADD COLUMN IF NOT EXISTS partition_key VARCHAR(255);
