-- OnceOnly schema version 10: the partition a message names inside its queue (null for none, and
-- for every message sent before this version), so that a queue's limit per partition counts the
-- live leases of each partition: leased = 1 AND deliver_at > now, grouped by partition_key. A dead
-- letter keeps its message's partition, and a requeued one gets it back.
-- Nullable columns without a default: adding them rewrites no row.

ALTER TABLE ${prefix}messages ADD COLUMN partition_key TEXT;

ALTER TABLE ${prefix}dead_letters ADD COLUMN partition_key TEXT;
