package dev.onceonly.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reads the raw replies of the stream commands (RESP2 shapes, as the client returns them). */
final class Replies {
  private Replies() {}

  /**
   * One entry as read from the stream.
   *
   * @param id the entry's id
   * @param fields its field names and values, alternating, or {@code null} if the entry was deleted
   *     (trimmed) while it was pending
   */
  record Entry(String id, List<byte[]> fields) {}

  /**
   * What one {@code XAUTOCLAIM ... JUSTID} call took over.
   *
   * @param cursor where the next call starts; {@code 0-0} once the pending list was scanned to its
   *     end
   * @param ids the ids of the claimed entries, now pending on the claiming consumer (on Redis 6.2
   *     including entries deleted from the stream)
   * @param deleted ids of entries that were pending but deleted from the stream (Redis 7.0 and
   *     later, which also drops them from the pending list)
   */
  record Claimed(String cursor, List<String> ids, List<String> deleted) {}

  /**
   * {@code XREADGROUP}: null on timeout, else one stream's entries, as {@code [[stream, entries]]}
   * (RESP2) or a map of stream to entries (RESP3).
   */
  static List<Entry> readGroup(Object reply) {
    if (reply == null) {
      return List.of();
    }
    List<Object> streams = list(reply);
    if (streams.isEmpty()) {
      return List.of();
    }
    Object stream = streams.get(0);
    return entries(stream instanceof Map.Entry<?, ?> e ? e.getValue() : list(stream).get(1));
  }

  /** {@code XAUTOCLAIM ... JUSTID}: {@code [cursor, ids]}, and {@code deleted} from Redis 7.0. */
  static Claimed claimed(Object reply) {
    List<Object> parts = list(reply);
    return new Claimed(
        text(parts.get(0)),
        texts(parts.get(1)),
        parts.size() > 2 ? texts(parts.get(2)) : List.of());
  }

  private static List<String> texts(Object reply) {
    List<String> out = new ArrayList<>();
    for (Object id : list(reply)) {
      out.add(text(id));
    }
    return out;
  }

  private static List<Entry> entries(Object reply) {
    List<Entry> out = new ArrayList<>();
    for (Object e : list(reply)) {
      List<Object> pair = list(e);
      Object fields = pair.size() > 1 ? pair.get(1) : null;
      List<byte[]> values = null;
      if (fields != null) {
        values = new ArrayList<>();
        for (Object v : list(fields)) {
          values.add((byte[]) v);
        }
      }
      out.add(new Entry(text(pair.get(0)), values));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object reply) {
    if (reply instanceof List<?>) {
      return (List<Object>) reply;
    }
    throw new IllegalStateException("unexpected reply from Redis: " + describe(reply));
  }

  static String text(Object reply) {
    if (reply instanceof byte[] b) {
      return new String(b, StandardCharsets.UTF_8);
    }
    throw new IllegalStateException("unexpected reply from Redis: " + describe(reply));
  }

  static long number(Object reply) {
    if (reply instanceof Long n) {
      return n;
    }
    throw new IllegalStateException("unexpected reply from Redis: " + describe(reply));
  }

  private static String describe(Object reply) {
    return reply == null ? "null" : reply.getClass().getName();
  }
}
