/**
 * The SQL claims behind {@link dev.onceonly.external.ExternalEffects}: claim rows, their
 * statements, and the fenced settlement of an effect outside the database. Built on the receipt
 * core.
 *
 * <p>Not exported by the module; nothing here is public API.
 */
package dev.onceonly.internal.external;
