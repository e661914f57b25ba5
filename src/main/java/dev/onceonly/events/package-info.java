/**
 * What the library did, as events for metrics and traces: a {@link
 * dev.onceonly.events.OnceOnlyListener} registered on {@code OnceOnlyBuilder#listener} receives
 * each {@link dev.onceonly.events.OnceOnlyEvent} after the work it describes, off the write path.
 *
 * <p>The events carry low-cardinality facts only (operation, queue, outcome kind, durations,
 * counts); a scope only when the builder is told to, and never a key, an argument or a result. This
 * package depends on nothing else of the library, so every part of it can publish here.
 */
package dev.onceonly.events;
