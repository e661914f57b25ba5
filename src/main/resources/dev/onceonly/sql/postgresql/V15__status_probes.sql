-- OnceOnly schema version 15: status probes of unknown claims. probes counts the probes of the
-- current unknown outcome (reset by every new claim); next_probe_at is stored when a probe is
-- taken, before it runs, so that neither another instance nor a restarted one probes the claim
-- again before its backoff; last_probe_at and last_probe_answer say what the last probe answered
-- ("applied", "not applied: ...", "still unknown: ...", "failed: ...", "timed out ..."), bounded.
-- Rows written before this version read as never probed.

ALTER TABLE ${prefix}claims ADD COLUMN IF NOT EXISTS probes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${prefix}claims ADD COLUMN IF NOT EXISTS next_probe_at TIMESTAMPTZ;
ALTER TABLE ${prefix}claims ADD COLUMN IF NOT EXISTS last_probe_at TIMESTAMPTZ;
ALTER TABLE ${prefix}claims ADD COLUMN IF NOT EXISTS last_probe_answer TEXT;

CREATE INDEX IF NOT EXISTS ${prefix}claims_probe_due ON ${prefix}claims (state, next_probe_at);
