/**
 * The RFC 8785 canonicalizer behind {@link dev.onceonly.Canonicalizer}: the JSON writer ({@code
 * Jcs}), ECMAScript number formatting, the byte sink that hashes as it writes, and the fingerprints
 * built on the canonical bytes. Depends on no other internal package, so the stores and the queue
 * share one canonical form.
 *
 * <p>Not exported by the module; nothing here is public API.
 */
package dev.onceonly.internal.jcs;
