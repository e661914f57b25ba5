-- OnceOnly schema version 12 for MariaDB: the indexes of SQLite's and PostgreSQL's version 12.
-- MariaDB has no partial index, so the leased messages' index holds every message, leased or not,
-- with leased as its second column: the live leases of a queue are still one range of it, at the
-- cost of one more index entry per message written. No data is touched.

CREATE INDEX IF NOT EXISTS ${prefix}messages_leased
  ON ${prefix}messages (queue, leased, deliver_at);

CREATE INDEX IF NOT EXISTS ${prefix}dead_letters_dead_at ON ${prefix}dead_letters (dead_at);
