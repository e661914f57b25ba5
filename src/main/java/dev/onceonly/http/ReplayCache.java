package dev.onceonly.http;

import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Responses this filter has seen completed in its store, kept in memory so that a replay is
 * answered without a read; bounded by the bytes it holds, the least recently answered going first.
 *
 * <p>The rule that keeps it exact: an entry is put only after the store holds the response as final
 * (a completion that committed, or a read of a completed claim or a committed receipt), and it is
 * answered only before its deadline, the earlier of the filter's replay retention and the receipt's
 * own expiry. A completed claim never changes and claims are not purged; a receipt's result is
 * tombstoned or deleted only by a purge, which touches only receipts past their expiry, in
 * whichever process runs it. So nothing the cache still answers can have been purged, as long as
 * the processes' clocks agree; past the deadline the entry is dropped and the store answers.
 *
 * <p>Not a library cache (Caffeine would be a new required dependency of the core jar): a weight in
 * bytes, a deadline per entry and least-recently-used order are a {@link LinkedHashMap} in access
 * order under one lock, which replays at the rates one process serves do not contend on.
 */
final class ReplayCache {
  /** What an entry costs beside its body and headers: the map's node, the records, the key. */
  private static final int ENTRY_OVERHEAD = 256;

  /**
   * A response the store holds as final.
   *
   * @param operation the route's operation it was stored under
   * @param fingerprint the fingerprint of the request that stored it
   * @param response the response
   * @param storedAt when it was stored (at latest), for the retention
   * @param until the first instant it may no longer be answered from here
   */
  record Entry(
      String operation,
      Fingerprint fingerprint,
      StoredResponse response,
      Instant storedAt,
      Instant until) {
    long weight() {
      long w = ENTRY_OVERHEAD + response.body().length();
      for (StoredResponse.Header h : response.headers()) {
        w += h.name().length() + h.value().length();
      }
      return w;
    }
  }

  private final long maxBytes;
  private final Duration retention;
  private final LinkedHashMap<IntentKey, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;

  /** A cache of at most {@code maxBytes} (0 keeps nothing) for a filter's replay retention. */
  ReplayCache(long maxBytes, Duration retention) {
    this.maxBytes = maxBytes;
    this.retention = retention;
  }

  /** {@return the entry of {@code key} if it may still be answered at {@code now}, else null} */
  Entry get(IntentKey key, Instant now) {
    if (maxBytes == 0) {
      return null;
    }
    synchronized (entries) {
      Entry e = entries.get(key);
      if (e == null || now.isBefore(e.until())) {
        return e;
      }
      remove(key, e);
      return null;
    }
  }

  /**
   * Keeps {@code response}, which the store holds as final for {@code key}, until the retention
   * from {@code storedAt} or the receipt's {@code expiresAt} (null: none), whichever comes first.
   *
   * @return the response (null is kept nowhere)
   */
  StoredResponse keep(
      IntentKey key,
      String operation,
      Fingerprint fingerprint,
      Instant storedAt,
      Instant expiresAt,
      StoredResponse response) {
    if (response != null) {
      Instant until = storedAt.plus(retention);
      if (expiresAt != null && expiresAt.isBefore(until)) {
        until = expiresAt;
      }
      put(key, new Entry(operation, fingerprint, response, storedAt, until));
    }
    return response;
  }

  /** Keeps {@code entry} for {@code key}, unless it alone is larger than the bound. */
  private void put(IntentKey key, Entry entry) {
    long weight = entry.weight();
    if (weight > maxBytes) {
      return;
    }
    synchronized (entries) {
      Entry old = entries.put(key, entry);
      bytes += weight - (old == null ? 0 : old.weight());
      Iterator<Map.Entry<IntentKey, Entry>> eldest = entries.entrySet().iterator();
      while (bytes > maxBytes) {
        bytes -= eldest.next().getValue().weight();
        eldest.remove();
      }
    }
  }

  private void remove(IntentKey key, Entry e) {
    entries.remove(key);
    bytes -= e.weight();
  }

  /** {@return how many entries it holds} */
  int size() {
    synchronized (entries) {
      return entries.size();
    }
  }
}
