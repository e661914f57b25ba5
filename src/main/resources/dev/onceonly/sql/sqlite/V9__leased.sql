-- OnceOnly schema version 9: whether a message is leased (1 from its claim until it is retried,
-- rescheduled or released; its row is deleted when acknowledged), so that a queue's concurrency
-- limit counts the live leases of every instance: leased = 1 AND deliver_at > now. A message
-- leased when this runs counts from its next claim.

ALTER TABLE ${prefix}messages ADD COLUMN leased INTEGER NOT NULL DEFAULT 0;
