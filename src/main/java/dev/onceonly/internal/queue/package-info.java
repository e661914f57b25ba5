/**
 * The SQL job queue behind {@link dev.onceonly.queue.JobQueue}: its statements, the in-process
 * wake-ups of idle workers, and the PostgreSQL notifications that wake workers of other instances.
 * Built on the receipt core, since a job completes with a receipt in the same transaction.
 *
 * <p>Not exported by the module; nothing here is public API.
 */
package dev.onceonly.internal.queue;
