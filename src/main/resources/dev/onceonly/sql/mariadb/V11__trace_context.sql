-- OnceOnly schema version 11 for MariaDB: trace context on dead letters and intents.

ALTER TABLE ${prefix}dead_letters ADD COLUMN IF NOT EXISTS traceparent LONGTEXT;
ALTER TABLE ${prefix}intents ADD COLUMN IF NOT EXISTS traceparent LONGTEXT;
