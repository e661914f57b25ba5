package dev.onceonly.internal.receipts;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Decides whether a result read back from its JSON is the result the effect returned, so that a
 * repeated request is answered with what the first one got.
 *
 * <p>"Equal" means: the same value for the simple types (strings, integers, booleans); for arrays,
 * equal elements in order; for records, equal components (so a record holding an array compares its
 * content, and a component Jackson skipped shows as a difference); for lists, equal elements in
 * order; for any other type that declares {@code equals}, that method; for a type that declares
 * none (identity only), equal JSON when written again, which is all that can be known of it. The
 * comparison descends at most {@value #MAX_DEPTH} levels; deeper values are compared with {@code
 * equals}.
 */
final class RoundTrip {
  private RoundTrip() {}

  static final int MAX_DEPTH = 256;

  /** Types whose JSON form reads back as the same value, so checking them would be double work. */
  private static final Set<Class<?>> EXACT =
      Set.of(String.class, Integer.class, Long.class, Short.class, Byte.class, Boolean.class);

  /** Returns whether {@code result} of {@code type} needs no read-back check. */
  static boolean exact(Object result, Class<?> type) {
    return result == null || (result.getClass() == type && EXACT.contains(type));
  }

  /** The JSON of a value that declares no equals, for the identity-only case. */
  @FunctionalInterface
  interface Json {
    String of(Object value);
  }

  /** Returns whether {@code back} is equal to {@code original} in the sense described above. */
  static boolean same(Object original, Object back, Json json) {
    return same(original, back, json, 0);
  }

  private static boolean same(Object a, Object b, Json json, int depth) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null) {
      return false;
    }
    if (depth >= MAX_DEPTH) {
      return a.equals(b);
    }
    if (a instanceof List<?> x) {
      // List.of(...) comes back as an ArrayList: lists compare across implementations.
      return b instanceof List<?> y && sameLists(x, y, json, depth);
    }
    Class<?> type = a.getClass();
    if (type.isArray() || type.isRecord()) {
      if (type != b.getClass()) {
        return false;
      }
      return type.isArray() ? sameArrays(a, b, json, depth) : sameRecords(a, b, json, depth);
    }
    if (declaresEquals(type)) {
      return a.equals(b); // sets and maps compare across implementations too
    }
    return type == b.getClass() && json.of(a).equals(json.of(b));
  }

  private static boolean sameArrays(Object a, Object b, Json json, int depth) {
    int n = Array.getLength(a);
    if (n != Array.getLength(b)) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (!same(Array.get(a, i), Array.get(b, i), json, depth + 1)) {
        return false;
      }
    }
    return true;
  }

  private static boolean sameLists(List<?> a, List<?> b, Json json, int depth) {
    if (a.size() != b.size()) {
      return false;
    }
    Iterator<?> x = a.iterator();
    Iterator<?> y = b.iterator();
    while (x.hasNext()) {
      if (!same(x.next(), y.next(), json, depth + 1)) {
        return false;
      }
    }
    return true;
  }

  private static boolean sameRecords(Object a, Object b, Json json, int depth) {
    for (RecordComponent component : a.getClass().getRecordComponents()) {
      Method accessor = component.getAccessor();
      Object x;
      Object y;
      try {
        x = accessor.invoke(a);
        y = accessor.invoke(b);
      } catch (ReflectiveOperationException | RuntimeException e) {
        return a.equals(b); // an accessor we may not call: the record's own equals decides
      }
      if (!same(x, y, json, depth + 1)) {
        return false;
      }
    }
    return true;
  }

  private static boolean declaresEquals(Class<?> type) {
    try {
      return type.getMethod("equals", Object.class).getDeclaringClass() != Object.class;
    } catch (NoSuchMethodException e) {
      return false; // every class has one; not reached
    }
  }
}
