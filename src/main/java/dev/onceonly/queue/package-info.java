/**
 * The durable job queue on SQL (the patterns of Spanner-style queues on plain tables): send in the
 * caller's own transaction (outbox), deliver at a future time, receive with a fenced lease, renew,
 * acknowledge, acknowledge-and-send atomically, retry with backoff, dead-letter after a limit,
 * large payloads by reference; and the {@link dev.onceonly.queue.Worker} that runs handlers.
 */
package dev.onceonly.queue;
