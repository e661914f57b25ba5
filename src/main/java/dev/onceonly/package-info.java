/**
 * The public API of OnceOnly: canonical fingerprints, intents, receipts and outcomes.
 *
 * <p>Start with {@link dev.onceonly.Canonicalizer}.
 */
package dev.onceonly;
