package dev.onceonly.internal.receipts;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides whether a result read back from its JSON is the result the effect returned, so that a
 * repeated request is answered with what the first one got.
 *
 * <p>"Equal" means: the same value for the simple types (strings, integers, booleans); for arrays,
 * equal elements in order; for records, equal components (so a record holding an array compares its
 * content, and a component Jackson skipped shows as a difference); for lists, equal elements in
 * order; for any other type that declares {@code equals}, that method; for a type of the
 * application that declares none (identity only), equal fields, every one of the class and its
 * superclasses, whatever Jackson makes of it ({@code @JsonIgnore}, {@code transient}, write-only,
 * read-only or without accessors), so that state the JSON does not carry shows as a difference; for
 * a platform type ({@code java.*}) that declares none, equal JSON when written again, which is all
 * that can be known of it. The comparison descends at most {@value #MAX_DEPTH} levels; deeper
 * values are compared with {@code equals}.
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

  /** A type without equals whose fields this library may not read (a module that does not open). */
  static final class FieldsUnreadable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    FieldsUnreadable(Class<?> type, RuntimeException cause) {
      super(type.getName() + " declares no equals and its fields cannot be read", cause);
    }
  }

  /**
   * Returns whether {@code back} is equal to {@code original} in the sense described above.
   *
   * @throws FieldsUnreadable if a type without equals has fields this library may not read
   */
  static boolean same(Object original, Object back, Json json) {
    return new Comparison(json).same(original, back, 0);
  }

  /** One comparison: the pairs of identity-only objects already matched, for shared and cycles. */
  private static final class Comparison {
    private final Json json;
    private final Map<Object, Object> matched = new IdentityHashMap<>();

    Comparison(Json json) {
      this.json = json;
    }

    boolean same(Object a, Object b, int depth) {
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
        return b instanceof List<?> y && sameLists(x, y, depth);
      }
      Class<?> type = a.getClass();
      if (type.isArray() || type.isRecord()) {
        if (type != b.getClass()) {
          return false;
        }
        return type.isArray() ? sameArrays(a, b, depth) : sameRecords(a, b, depth);
      }
      if (declaresEquals(type)) {
        return a.equals(b); // sets and maps compare across implementations too
      }
      if (type != b.getClass()) {
        return false;
      }
      if (platform(type)) {
        return json.of(a).equals(json.of(b));
      }
      if (matched.get(a) == b) {
        return true; // compared already, or being compared further up (a cycle)
      }
      matched.put(a, b);
      return sameFields(a, b, depth);
    }

    private boolean sameArrays(Object a, Object b, int depth) {
      int n = Array.getLength(a);
      if (n != Array.getLength(b)) {
        return false;
      }
      for (int i = 0; i < n; i++) {
        if (!same(Array.get(a, i), Array.get(b, i), depth + 1)) {
          return false;
        }
      }
      return true;
    }

    private boolean sameLists(List<?> a, List<?> b, int depth) {
      if (a.size() != b.size()) {
        return false;
      }
      Iterator<?> x = a.iterator();
      Iterator<?> y = b.iterator();
      while (x.hasNext()) {
        if (!same(x.next(), y.next(), depth + 1)) {
          return false;
        }
      }
      return true;
    }

    private boolean sameRecords(Object a, Object b, int depth) {
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
        if (!same(x, y, depth + 1)) {
          return false;
        }
      }
      return true;
    }

    /**
     * Compares every instance field of the class and of its superclasses up to the platform's,
     * whether or not Jackson writes or reads it: the caller saw all of them.
     */
    private boolean sameFields(Object a, Object b, int depth) {
      for (Class<?> c = a.getClass(); c != null && !platform(c); c = c.getSuperclass()) {
        for (Field field : c.getDeclaredFields()) {
          if (Modifier.isStatic(field.getModifiers()) || field.isSynthetic()) {
            continue;
          }
          Object x;
          Object y;
          try {
            field.setAccessible(true);
            x = field.get(a);
            y = field.get(b);
          } catch (IllegalAccessException e) {
            throw new FieldsUnreadable(c, new IllegalStateException(e));
          } catch (RuntimeException e) { // InaccessibleObjectException, SecurityException
            throw new FieldsUnreadable(c, e);
          }
          if (!same(x, y, depth + 1)) {
            return false;
          }
        }
      }
      return true;
    }
  }

  /** Whether {@code type} comes with the platform (its JSON is Jackson's own, not its fields'). */
  private static boolean platform(Class<?> type) {
    ClassLoader loader = type.getClassLoader();
    return loader == null || loader == ClassLoader.getPlatformClassLoader();
  }

  private static boolean declaresEquals(Class<?> type) {
    try {
      return type.getMethod("equals", Object.class).getDeclaringClass() != Object.class;
    } catch (NoSuchMethodException e) {
      return false; // every class has one; not reached
    }
  }
}
