-- OnceOnly schema version 12: two indexes that let a store be read without walking its rows.
-- messages_leased holds only leased messages (a claim's lease; usually as many as the receivers
-- run at once): the live leases of a queue, which the status counts and every claim under a
-- concurrency limit counts, are a range of it instead of a pass over the queue's rows.
-- dead_letters_dead_at gives the dead letters of a stretch of time (the dashboard's dead-lettered
-- per minute), the oldest ones (the purge) and the newest (the dead-letters page) by a seek.
-- No data is touched.

CREATE INDEX IF NOT EXISTS ${prefix}messages_leased
  ON ${prefix}messages (queue, deliver_at) WHERE leased = 1;

CREATE INDEX IF NOT EXISTS ${prefix}dead_letters_dead_at ON ${prefix}dead_letters (dead_at);
