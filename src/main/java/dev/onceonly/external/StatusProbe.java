package dev.onceonly.external;

import java.io.IOException;

/**
 * Asks a provider whether an effect whose outcome is unknown was applied, for the claims of one
 * operation (registered with {@link dev.onceonly.OnceOnlyBuilder#statusProbe}). {@link
 * ExternalEffects#resolveUnknown()} (on demand, or after each pass of a {@link
 * dev.onceonly.Reconciler}) runs it for each {@link ClaimState#UNKNOWN} claim whose next probe is
 * due, and settle the claim by its answer exactly as an operator's {@link
 * ExternalEffects#resolveDone} or {@link ExternalEffects#resolveNotDone} would.
 *
 * <pre>{@code
 * StatusProbe probe = claim -> {
 *   HttpResponse<String> r = http.send(
 *       HttpRequest.newBuilder(URI.create(base + "/charges/" + claim.downstreamKey())).build(),
 *       HttpResponse.BodyHandlers.ofString());
 *   return switch (r.statusCode()) {
 *     case 200 -> ProbeAnswer.applied(r.body());
 *     case 404 -> ProbeAnswer.notApplied("the provider has no charge under the key");
 *     default -> ProbeAnswer.stillUnknown("HTTP " + r.statusCode());
 *   };
 * };
 * }</pre>
 *
 * <p>It runs on a thread of its own, outside any database transaction and holding no connection,
 * for at most {@link ProbePolicy#timeout()}: after it the thread is interrupted and the claim stays
 * unknown. A probe that throws, answers null or runs out of time leaves the claim unknown; the
 * reason is stored as the claim's last probe answer and published as {@link
 * dev.onceonly.events.OnceOnlyEvent.ClaimProbed}. Answer {@link ProbeAnswer#notApplied} only when
 * the provider's own records say the effect did not happen (and cannot still happen, for example
 * because the provider refuses the key now): a new attempt follows, with the same downstream key.
 *
 * <p>May be called from several threads at once, for different claims.
 */
@FunctionalInterface
public interface StatusProbe {
  /**
   * Asks the provider about one unknown claim.
   *
   * @param claim the claim with its evidence: {@link ClaimRecord#downstreamKey()}, {@link
   *     ClaimRecord#attempts()}, {@link ClaimRecord#lastError()}, the canonical arguments
   * @return what the provider's records say
   * @throws IOException if the provider could not be asked; the claim stays unknown
   * @throws InterruptedException if the probe was interrupted (its time ran out); the claim stays
   *     unknown
   */
  ProbeAnswer probe(ClaimRecord claim) throws IOException, InterruptedException;
}
