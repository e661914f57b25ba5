-- OnceOnly schema version 6 for MariaDB: message priorities.

ALTER TABLE ${prefix}messages ADD COLUMN IF NOT EXISTS priority INTEGER NOT NULL DEFAULT 0;

ALTER TABLE ${prefix}dead_letters ADD COLUMN IF NOT EXISTS priority INTEGER NOT NULL DEFAULT 0;

CREATE INDEX IF NOT EXISTS ${prefix}messages_priority_due
  ON ${prefix}messages (queue, priority DESC, deliver_at, id);
