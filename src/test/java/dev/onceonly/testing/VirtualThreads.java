package dev.onceonly.testing;

import java.lang.reflect.Method;
import java.util.concurrent.ThreadFactory;

/**
 * Java 21's virtual threads reached by reflection, since the tests compile for Java 17: the tests
 * that use them run on a newer JDK ({@code *OnJdk21IT}, see the pom's {@code jdk21-tests} profile).
 */
public final class VirtualThreads {
  private VirtualThreads() {}

  /** {@return whether this JVM has virtual threads} */
  public static boolean available() {
    return Runtime.version().feature() >= 21;
  }

  /** {@return {@code Thread.ofVirtual().name(prefix, 0).factory()}} */
  public static ThreadFactory factory(String prefix) {
    try {
      Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
      Method name =
          Class.forName("java.lang.Thread$Builder").getMethod("name", String.class, long.class);
      builder = name.invoke(builder, prefix, 0L);
      return (ThreadFactory)
          Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no virtual threads on Java " + Runtime.version(), e);
    }
  }

  /** {@return {@code thread.isVirtual()}; false before Java 21} */
  public static boolean isVirtual(Thread thread) {
    if (!available()) {
      return false;
    }
    try {
      return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
