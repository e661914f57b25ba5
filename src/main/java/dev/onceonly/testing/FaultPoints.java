package dev.onceonly.testing;

/**
 * Marks a point in the application's own code where a {@link FaultRun} may kill the process, in
 * addition to the points it finds by itself (before and after every statement and commit on the
 * store's connection and on the connections of the data source it hands the target): after an
 * effect the run cannot see, such as a call to a provider. Each named point is a class of its own,
 * which the run kills in at least once when it has the kills. Outside a fault run it does nothing.
 *
 * <pre>{@code
 * provider.charge(order);
 * FaultPoints.reached("after the provider answered");
 * }</pre>
 */
public final class FaultPoints {
  private static volatile Hook hook;

  private FaultPoints() {}

  /** What a fault run's child JVM installs. */
  interface Hook {
    void reached(String what);
  }

  static void install(Hook h) {
    hook = h;
  }

  /**
   * Tells a running fault run that the code reached a point; it may kill the process here.
   *
   * @param what names the point in the run's report ({@code point: what})
   */
  public static void reached(String what) {
    Hook h = hook;
    if (h != null) {
      h.reached(what);
    }
  }
}
