-- OnceOnly schema version 15 for MariaDB: status probes of unknown claims (see the SQLite script).

ALTER TABLE ${prefix}claims ADD COLUMN IF NOT EXISTS probes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${prefix}claims ADD COLUMN IF NOT EXISTS next_probe_at DATETIME(6);
ALTER TABLE ${prefix}claims ADD COLUMN IF NOT EXISTS last_probe_at DATETIME(6);
ALTER TABLE ${prefix}claims ADD COLUMN IF NOT EXISTS last_probe_answer LONGTEXT;

CREATE INDEX IF NOT EXISTS ${prefix}claims_probe_due ON ${prefix}claims (state, next_probe_at);
