-- OnceOnly schema version 9 for MariaDB: whether a message is leased.

ALTER TABLE ${prefix}messages ADD COLUMN IF NOT EXISTS leased INTEGER NOT NULL DEFAULT 0;
