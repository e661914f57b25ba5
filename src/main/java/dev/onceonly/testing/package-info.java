/**
 * A kit for testing an application's own code on OnceOnly, with the parts the library's own suite
 * uses: a fresh store per test on a real database, a clock the test moves, a restart of the store
 * as a restarted process would see it, queues drained on the test's thread, assertions counted from
 * rows, an auditor of a live database, and a fault-injection run that kills child JVMs at many
 * points of the application's handler and counts duplicate and lost effects in its own tables.
 *
 * <p>JUnit Jupiter is an optional dependency of the library: only {@link
 * dev.onceonly.testing.OnceOnlyExtension} and {@link dev.onceonly.testing.OnceOnlyTest} need it on
 * the class path; everything else here runs without it (the {@code onceonly} command-line tool uses
 * the auditor and the fault-injection run). Assertions throw {@link AssertionError} with a message
 * that names the key and the counts, so they fit any test framework.
 */
package dev.onceonly.testing;
