-- OnceOnly schema version 3 for PostgreSQL: claims on effects that leave the database.
-- One row per intent (scope + key). A claim holds the intent under a lease until lease_until;
-- every claim increments fence, and completion and failure are compare-and-set on it, so a
-- holder whose lease was taken over changes nothing. downstream_key is sent to the provider and
-- stays the same across attempts. maybe_applied is 1 once an attempt may have reached the
-- provider without a known outcome (a lost response, an expired lease).
-- operation, fingerprint and arguments are NULL only for an intent cancelled before any claim.
-- States: IN_PROGRESS, COMPLETED, RETRY_WAIT, FAILED, UNKNOWN, CANCEL_REQUESTED, CANCELLED.

CREATE TABLE IF NOT EXISTS ${prefix}claims (
  scope               TEXT COLLATE "C" NOT NULL,
  intent_key          TEXT COLLATE "C" NOT NULL,
  operation           TEXT,
  fingerprint         TEXT,
  arguments           TEXT,
  state               TEXT        NOT NULL,
  fence               BIGINT      NOT NULL DEFAULT 0,
  lease_until         TIMESTAMPTZ,
  attempts            INTEGER     NOT NULL DEFAULT 0,
  downstream_key      TEXT        NOT NULL,
  result              TEXT,
  last_error          TEXT,
  failure_class       TEXT,
  maybe_applied       INTEGER     NOT NULL DEFAULT 0,
  next_attempt_at     TIMESTAMPTZ,
  first_attempt_at    TIMESTAMPTZ,
  cancel_reason       TEXT,
  cancel_requested_at TIMESTAMPTZ,
  compensates_key     TEXT COLLATE "C",
  created_at          TIMESTAMPTZ NOT NULL,
  updated_at          TIMESTAMPTZ NOT NULL,
  completed_at        TIMESTAMPTZ,
  PRIMARY KEY (scope, intent_key)
);

CREATE INDEX IF NOT EXISTS ${prefix}claims_lease ON ${prefix}claims (state, lease_until);

CREATE INDEX IF NOT EXISTS ${prefix}claims_state_key
  ON ${prefix}claims (state, scope, intent_key);
