-- OnceOnly schema version 6 for PostgreSQL: message priorities. Among due messages a claim takes
-- the highest priority first, oldest first within one (and one claim in four the oldest whatever
-- their priority, so that none starves); a dead letter keeps its message's priority for requeue.

ALTER TABLE ${prefix}messages ADD COLUMN IF NOT EXISTS priority INTEGER NOT NULL DEFAULT 0;

ALTER TABLE ${prefix}dead_letters ADD COLUMN IF NOT EXISTS priority INTEGER NOT NULL DEFAULT 0;

CREATE INDEX IF NOT EXISTS ${prefix}messages_priority_due
  ON ${prefix}messages (queue, priority DESC, deliver_at, id);
