/**
 * The maintenance API for operators: counts per table and state, the schema version, retention in
 * bounded batches, and migrations, all on a running store. The {@code onceonly} command-line tool
 * is built on it, so whatever it shows or changes, an application can do from its own code.
 */
package dev.onceonly.maintenance;
