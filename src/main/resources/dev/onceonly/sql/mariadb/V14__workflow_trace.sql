-- OnceOnly schema version 14 for MariaDB: the trace context of a workflow run.
ALTER TABLE ${prefix}workflows ADD COLUMN IF NOT EXISTS traceparent LONGTEXT;
-- The W3C traceparent of the thread that started the run (null when it had none, and for every
-- run started before this version). Every step's and compensation's message carries it, so the
-- handlers of a run's steps all link to the trace of its start. A nullable column without a
-- default: adding it rewrites no row.
