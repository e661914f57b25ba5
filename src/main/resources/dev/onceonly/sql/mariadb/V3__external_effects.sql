-- OnceOnly schema version 3 for MariaDB: claims on external effects.

CREATE TABLE IF NOT EXISTS ${prefix}claims (
  scope               VARCHAR(255) NOT NULL,
  intent_key          VARCHAR(255) NOT NULL,
  operation           VARCHAR(255),
  fingerprint         VARCHAR(255),
  arguments           LONGTEXT,
  state               VARCHAR(32)  NOT NULL,
  fence               BIGINT       NOT NULL DEFAULT 0,
  lease_until         DATETIME(6),
  attempts            INTEGER      NOT NULL DEFAULT 0,
  downstream_key      LONGTEXT     NOT NULL,
  result              LONGTEXT,
  last_error          LONGTEXT,
  failure_class       LONGTEXT,
  maybe_applied       INTEGER      NOT NULL DEFAULT 0,
  next_attempt_at     DATETIME(6),
  first_attempt_at    DATETIME(6),
  cancel_reason       LONGTEXT,
  cancel_requested_at DATETIME(6),
  compensates_key     LONGTEXT,
  created_at          DATETIME(6)  NOT NULL,
  updated_at          DATETIME(6)  NOT NULL,
  completed_at        DATETIME(6),
  PRIMARY KEY (scope, intent_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE INDEX IF NOT EXISTS ${prefix}claims_lease ON ${prefix}claims (state, lease_until);

CREATE INDEX IF NOT EXISTS ${prefix}claims_state_key
  ON ${prefix}claims (state, scope, intent_key);
