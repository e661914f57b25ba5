package dev.onceonly.testing;

import java.util.HashMap;
import java.util.Map;

/** The {@code name=value} arguments of the child JVM mains started with {@link ChildJvm}. */
public final class ChildArgs {
  private final Map<String, String> values;

  private ChildArgs(Map<String, String> values) {
    this.values = values;
  }

  /** Parses {@code name=value} arguments. */
  public static ChildArgs parse(String[] argv) {
    Map<String, String> values = new HashMap<>();
    for (String a : argv) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("arguments are name=value: " + a);
      }
      values.put(a.substring(0, eq), a.substring(eq + 1));
    }
    return new ChildArgs(values);
  }

  /** Returns a required argument. */
  public String required(String name) {
    String v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException("missing argument " + name + "=...");
    }
    return v;
  }

  /** Returns an argument, or {@code fallback}. */
  public String get(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }
}
