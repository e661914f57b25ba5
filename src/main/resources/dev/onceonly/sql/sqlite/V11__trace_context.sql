-- OnceOnly schema version 11: the W3C traceparent of the thread that sent a message, kept when the
-- message moves to the dead letters (so that one requeued from them still links to its sender),
-- and of the thread that registered an intent (so that its reconciliation can link to the request
-- that recorded it). Null when there was none, and for every row written before this version.
-- Nullable columns without a default: adding them rewrites no row.

ALTER TABLE ${prefix}dead_letters ADD COLUMN traceparent TEXT;
ALTER TABLE ${prefix}intents ADD COLUMN traceparent TEXT;
