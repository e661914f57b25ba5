-- Purging tombstones expired receipts in batches, oldest expires_at first, among rows that
-- still hold a result. Tombstoned rows keep their expires_at until forget_at (a year by
-- default), so on the plain expires_at index each batch walked past every tombstone before
-- reaching a live row: a purge got slower as tombstones piled up. This index holds live rows only.
CREATE INDEX IF NOT EXISTS ${prefix}receipts_live_expires_at
  ON ${prefix}receipts (expires_at) WHERE result IS NOT NULL;

-- Every query on expires_at also asks for result IS NOT NULL, older versions' included, so the
-- index above serves them all; the plain one would only cost every write. No data is touched.
DROP INDEX IF EXISTS ${prefix}receipts_expires_at;
