-- The W3C traceparent of the thread that sent the message (null when it had none, and for every
-- message sent before this version), so that its handler can link its trace to the sender's.
-- A nullable column without a default: adding it rewrites no row.
ALTER TABLE ${prefix}messages ADD COLUMN IF NOT EXISTS traceparent TEXT;
