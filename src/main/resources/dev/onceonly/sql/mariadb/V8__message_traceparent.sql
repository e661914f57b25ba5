-- OnceOnly schema version 8 for MariaDB: the trace context of a message.
ALTER TABLE ${prefix}messages ADD COLUMN IF NOT EXISTS traceparent LONGTEXT;
