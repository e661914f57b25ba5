/**
 * Effects that leave the database (an HTTP call, an e-mail, a payment): they cannot share the
 * database's transaction, so they are claimed under a fenced lease, run with a downstream
 * idempotency key derived from the intent, and completed with a compare-and-set on the fence. An
 * attempt whose outcome is not known is reported as {@link
 * dev.onceonly.external.ClaimState#UNKNOWN} with its evidence, never guessed. Failure classes,
 * retry budgets, cancellation and compensation are explicit. Start with {@link
 * dev.onceonly.external.ExternalEffects}.
 */
package dev.onceonly.external;
