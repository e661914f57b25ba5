package dev.onceonly.external;

import dev.onceonly.IntentKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Tracks effects that leave the database (an HTTP call to a provider), which cannot share the
 * database's transaction and so cannot be made "exactly once" by a receipt alone.
 *
 * <p>The flow, per intent:
 *
 * <pre>{@code
 * ClaimOutcome outcome = effects.claim(key, "charge", args, Duration.ofSeconds(30));
 * if (outcome instanceof ClaimOutcome.Claimed c) {
 *   Claim claim = c.claim();
 *   if (effects.check(claim) != ClaimCheck.ACTIVE) {
 *     effects.abandon(claim);                 // cancelled or lease lost: do not start
 *   } else {
 *     try {
 *       Charge charge = provider.charge(args, claim.downstreamKey());
 *       effects.complete(claim, charge);      // fenced compare-and-set
 *     } catch (TimeoutException e) {
 *       effects.fail(claim, Failure.unknownAfterSend(e.toString()));
 *     }
 *   }
 * } else if (outcome instanceof ClaimOutcome.Repeated r) {
 *   return r.result(Charge.class);            // it already happened
 * }
 * }</pre>
 *
 * <p><b>Claims and fencing.</b> A claim holds the intent under a lease; each claim increments the
 * intent's fencing number. {@link #complete}, {@link #fail} and {@link #abandon} are
 * compare-and-set on that number: a holder whose claim was taken over gets {@link
 * Settlement.Fenced} and changes nothing. A claim that is still the latest one may report after its
 * lease ran out (a late success is recorded, because it is the truth).
 *
 * <p><b>Downstream key.</b> Every attempt of an intent sends the same {@link Claim#downstreamKey()}
 * to the provider (see {@link #downstreamKey(IntentKey)}), so a provider that deduplicates by it
 * applies the effect at most once however often it is sent.
 *
 * <p><b>Unknown is reported, not guessed.</b> A lease that ran out without a report, or a failure
 * of class {@link FailureClass#UNKNOWN_AFTER_SEND}, makes the intent {@link ClaimState#UNKNOWN}
 * with its evidence kept; it is not run again until reconciliation ({@link #unknown}, {@link
 * #resolveDone}, {@link #resolveNotDone}) decides. The one exception is an operation declared safe
 * to repeat ({@link dev.onceonly.OnceOnlyBuilder#safeToRepeat}): the provider deduplicates by the
 * downstream key, so the intent is claimed again with the same key and a higher fence.
 *
 * <p><b>Status probes</b> ({@link dev.onceonly.OnceOnlyBuilder#statusProbe}) let the library ask
 * the provider itself: {@link #resolveUnknown()}, on demand or after each pass of a {@link
 * dev.onceonly.Reconciler} ({@code afterEachPass}), runs them and settles each unknown claim as its
 * provider's records say.
 *
 * <p><b>Retries</b> follow the {@link dev.onceonly.queue.RetryPolicy} of this view (full jitter,
 * attempt and time budget). The next attempt time is stored and answered as {@link
 * ClaimOutcome.RetryLater}; nothing sleeps. If a client library also retries, its attempts multiply
 * with these: let one layer own the retry.
 *
 * <p><b>Cancellation</b> is a transition ({@link #cancel}). Between a cancellation and a claim
 * racing on the same intent, the one that commits first wins: a claim committed first is in flight
 * and the cancellation becomes {@link ClaimState#CANCEL_REQUESTED}; a cancellation committed first
 * makes the claim answer {@link ClaimOutcome.Cancelled}. A worker asks {@link #check} before it
 * starts the effect.
 *
 * <p>Every method runs in one short transaction of its own; none waits on the network while a
 * transaction is open. Thread-safe.
 */
public interface ExternalEffects {
  /** The prefix of every downstream key this version derives. */
  String DOWNSTREAM_KEY_PREFIX = "oo1-";

  /**
   * Claims an intent's external effect for this caller, or says why not.
   *
   * <p>New intent: claimed (attempt 1, fence 1). Same content as a stored claim: {@link
   * ClaimOutcome.Repeated} once completed, {@link ClaimOutcome.InProgress} while another holder's
   * lease is live, {@link ClaimOutcome.RetryLater} before a scheduled retry, claimed again (fence +
   * 1, same downstream key) when the retry is due, {@link ClaimOutcome.Failed}, {@link
   * ClaimOutcome.Cancelled} or {@link ClaimOutcome.Unknown} for the settled states. A lease that
   * ran out without a report makes the intent {@link ClaimState#UNKNOWN} (answered {@link
   * ClaimOutcome.Unknown}), unless the operation is safe to repeat and the retry budget allows
   * another attempt; then it is claimed again. Other content under the key: {@link
   * ClaimOutcome.Conflict}, nothing written.
   *
   * @param key the intent's identity
   * @param operation the operation's name
   * @param arguments the operation's arguments (a Jackson tree or any value Jackson converts)
   * @param lease how long the claim holds the intent; the effect must be sent within it; positive,
   *     at most 100 years
   * @return the answer; {@link ClaimOutcome.Claimed} only after its commit
   * @throws dev.onceonly.InvalidRequestException if the request is refused before anything ran
   * @throws dev.onceonly.CanonicalizationException if the arguments are not I-JSON or too large
   * @throws dev.onceonly.StoreException if the database fails; nothing was claimed
   */
  ClaimOutcome claim(IntentKey key, String operation, Object arguments, Duration lease);

  /**
   * Records that the effect happened, with its result, if {@code claim} is still the intent's
   * latest claim and the intent is not settled. Every later claim gets the result as {@link
   * ClaimOutcome.Repeated}. A completion after a requested cancellation is recorded too: the effect
   * happened, and the cancellation came too late.
   *
   * @param claim the claim that ran the effect
   * @param result the provider's answer to keep (serialized with Jackson); may be null
   * @return {@link Settlement.Completed}, or {@link Settlement.Fenced} if the claim no longer holds
   *     the intent (nothing changed)
   * @throws IllegalArgumentException if the result cannot be written as JSON
   */
  Settlement complete(Claim claim, Object result);

  /**
   * Records a failed attempt and applies its class's reaction (see {@link FailureClass}): a retry
   * at a stored time within the budget, {@link ClaimState#FAILED}, or {@link ClaimState#UNKNOWN}.
   * If cancellation was requested, a failure that applied nothing cancels the intent.
   *
   * @param claim the claim whose attempt failed
   * @param failure what happened
   * @return the state the intent moved to; {@link Settlement.Unknown} unchanged if the lease had
   *     already run out and the intent waits for reconciliation; {@link Settlement.Fenced} if the
   *     claim no longer holds the intent (nothing changed)
   */
  Settlement fail(Claim claim, Failure failure);

  /**
   * Gives the intent back without having started the effect under this claim (for example after
   * {@link #check} said {@link ClaimCheck#CANCEL_REQUESTED}). With a requested cancellation the
   * intent becomes {@link ClaimState#CANCELLED}; otherwise it may be claimed again at once, and
   * this attempt is not counted.
   *
   * @param claim the claim that did not start the effect
   * @return {@link Settlement.Cancelled}, {@link Settlement.RetryScheduled}, {@link
   *     Settlement.Unknown} (an earlier attempt may have applied the effect, or the lease had run
   *     out), or {@link Settlement.Fenced}
   */
  Settlement abandon(Claim claim);

  /**
   * Says whether the holder of {@code claim} may start the effect now. Ask before starting and
   * after any long preparation returns. A cancellation committed after this answer cannot stop an
   * effect already sent; it then ends as {@link ClaimState#COMPLETED} or {@link
   * ClaimState#UNKNOWN}, never as a false {@link ClaimState#CANCELLED}.
   *
   * @param claim the claim
   * @return {@link ClaimCheck#ACTIVE} only if the claim is current, its lease live, and no
   *     cancellation was requested
   */
  ClaimCheck check(Claim claim);

  /**
   * Extends the lease of a claim still held, fenced like the queue's renewals: it succeeds only
   * while no one has taken the intent over (the fence is the claim's) and the intent is still in
   * progress (or asked to cancel), even a moment after the lease ran out if no one claimed it
   * meanwhile. Call it while a long call runs, or let {@link ClaimHeartbeat} call it.
   *
   * @param claim the claim
   * @param extension the new lease from now, positive
   * @return the claim with its new {@link Claim#leaseUntil()}, or empty if it is no longer held: do
   *     not start the effect, and report what happened if it was already sent
   */
  Optional<Claim> renew(Claim claim, Duration extension);

  /**
   * Starts renewing a claim's lease every third of {@code lease} on a daemon thread, until closed,
   * so that a call longer than the lease keeps the intent:
   *
   * <pre>{@code
   * try (ClaimHeartbeat beat = effects.heartbeat(claim, Duration.ofSeconds(30))) {
   *   receipt = provider.charge(claim.downstreamKey(), amount); // may take minutes
   * }
   * effects.complete(claim, receipt);
   * }</pre>
   *
   * @param claim the claim
   * @param lease the lease each renewal grants from its moment, positive
   * @return the running heartbeat
   */
  default ClaimHeartbeat heartbeat(Claim claim, Duration lease) {
    return ClaimHeartbeat.start(this, claim, lease);
  }

  /**
   * Returns whether cancellation was requested for the intent {@code claim} holds. Shorthand for
   * {@code check(claim) == ClaimCheck.CANCEL_REQUESTED}; a worker should still start the effect
   * only when {@link #check} answers {@link ClaimCheck#ACTIVE}.
   *
   * @param claim the claim
   * @return whether the holder was asked to stop
   */
  default boolean isCancelRequested(Claim claim) {
    return check(claim) == ClaimCheck.CANCEL_REQUESTED;
  }

  /**
   * Cancels an intent: a transition, not a rollback. Not started (no claim yet, even no row: one is
   * recorded so that a late claim cannot start; or waiting for a retry): {@link
   * CancelResult.Cancelled}. In flight: {@link CancelResult.Requested} with {@link
   * ClaimState#CANCEL_REQUESTED}, settled by the holder's report or by reconciliation. Outcome
   * unknown: {@link CancelResult.Requested} with {@link ClaimState#UNKNOWN}. Completed: refused
   * with {@link CancelResult.AlreadyCompleted} (compensate instead). Failed: {@link
   * CancelResult.AlreadyFailed}.
   *
   * @param key the intent
   * @param reason why, for a person (bounded when stored)
   * @return the answer; a repeated cancellation answers the same and keeps the first reason
   */
  CancelResult cancel(IntentKey key, String reason);

  /**
   * Claims a compensation: a new business action, with its own key, receipt, downstream key,
   * retries and failures, that undoes a completed effect (refund a charge, release a booking). It
   * is recorded as compensating {@code original}. Call it again to retry it, like {@link #claim}.
   *
   * @param original the intent to undo; must be {@link ClaimState#COMPLETED}
   * @param compensation the compensation's own key, in the same scope
   * @param operation the compensating operation's name
   * @param arguments its arguments
   * @param lease how long the claim holds the compensation; positive, at most 100 years
   * @return the answer, as for {@link #claim}
   * @throws dev.onceonly.InvalidRequestException if the original is not completed, the scopes
   *     differ, the keys are equal, or the compensation's key is already used for something that
   *     does not compensate {@code original}; nothing is written
   */
  ClaimOutcome compensate(
      IntentKey original,
      IntentKey compensation,
      String operation,
      Object arguments,
      Duration lease);

  /**
   * Returns up to {@code limit} intents waiting for reconciliation, in scope-then-key order. First,
   * in the same transaction, sweeps up to {@code limit} claims whose lease ran out without a
   * report: they become {@link ClaimState#UNKNOWN}, or, for operations safe to repeat with budget
   * left, {@link ClaimState#RETRY_WAIT} due at once.
   *
   * @param limit the largest batch, from 1 to 10,000
   * @return the unknown claims with their evidence
   */
  List<ClaimRecord> unknown(int limit);

  /**
   * Returns the next batch of {@link #unknown(int)} after {@code after}, sweeping first likewise.
   *
   * @param after the last key of the previous batch
   * @param limit the largest batch, from 1 to 10,000
   * @return the unknown claims after {@code after}
   */
  List<ClaimRecord> unknownAfter(IntentKey after, int limit);

  /**
   * Returns up to {@code limit} intents already {@link ClaimState#UNKNOWN}, in scope-then-key
   * order, without sweeping: it only reads, so a view that must change nothing (a read-only
   * dashboard, a report) can list them. A claim whose lease ran out without a report becomes
   * unknown at the next sweep ({@link #unknown(int)}), and is not listed before it.
   *
   * @param limit the largest batch, from 1 to 10,000
   * @return the unknown claims with their evidence
   */
  List<ClaimRecord> listUnknown(int limit);

  /**
   * Settles an unknown intent as done, after checking the provider (for example by its downstream
   * key): it becomes {@link ClaimState#COMPLETED} with {@code result}, and later claims get {@link
   * ClaimOutcome.Repeated}.
   *
   * @param key the intent
   * @param result the result found at the provider (serialized with Jackson); may be null
   * @return {@link ClaimState#COMPLETED}, or empty if the intent was not {@link ClaimState#UNKNOWN}
   *     (nothing changed)
   */
  Optional<ClaimState> resolveDone(IntentKey key, Object result);

  /**
   * Settles an unknown intent as not done, after checking the provider: a new attempt is allowed at
   * once, with the same downstream key (the operator's decision does not count against the retry
   * budget); if cancellation was requested, the intent becomes {@link ClaimState#CANCELLED}
   * instead.
   *
   * @param key the intent
   * @return {@link ClaimState#RETRY_WAIT} or {@link ClaimState#CANCELLED}, or empty if the intent
   *     was not {@link ClaimState#UNKNOWN} (nothing changed)
   */
  Optional<ClaimState> resolveNotDone(IntentKey key);

  /**
   * Settles an unknown intent as not done, as {@link #resolveNotDone(IntentKey)}, and stores why:
   * {@link ClaimRecord#lastError()} becomes {@code resolved as not done: } and the reason, bounded
   * like every stored error, so the decision stays with the intent's evidence.
   *
   * @param key the intent
   * @param reason who decided and why, for people
   * @return {@link ClaimState#RETRY_WAIT} or {@link ClaimState#CANCELLED}, or empty if the intent
   *     was not {@link ClaimState#UNKNOWN} (nothing changed)
   */
  Optional<ClaimState> resolveNotDone(IntentKey key, String reason);

  /**
   * Runs the status probes ({@link dev.onceonly.OnceOnlyBuilder#statusProbe}) of the unknown claims
   * whose next probe is due, and settles each by its probe's answer exactly as {@link #resolveDone}
   * or {@link #resolveNotDone(IntentKey, String)} would: {@link ProbeAnswer.Applied} records the
   * result once, {@link ProbeAnswer.NotApplied} allows a new attempt (or cancels, if cancellation
   * was requested), {@link ProbeAnswer.StillUnknown} leaves the claim unknown. First it sweeps
   * claims whose lease ran out, as {@link #unknown(int)} does.
   *
   * <p>Each claim is taken in a short transaction that stores its next probe time (see {@link
   * ProbePolicy}) before the probe runs; the probe then runs outside any transaction, holding no
   * connection, on a thread of its own for at most {@link ProbePolicy#timeout()}; its answer is
   * applied in a transaction of its own only if the claim is still unknown under the same fence, so
   * an operator's resolution, a late completion or another instance's probe that got there first
   * wins and the answer changes nothing. A probe that throws, answers null or runs out of time
   * leaves the claim unknown. Every answer is stored as the claim's {@link
   * ClaimRecord#lastProbeAnswer()} and published as {@link
   * dev.onceonly.events.OnceOnlyEvent.ClaimProbed}. Probes run one after another, in scope-then-key
   * order, in batches of 100, at most 10,000 claims a call.
   *
   * @return what the probes did; {@link ProbeReport#NONE} when no operation has a probe
   */
  ProbeReport resolveUnknown();

  /**
   * Returns everything stored about an intent's external effect.
   *
   * @param key the intent
   * @return the record, or empty if the intent was never claimed nor cancelled
   */
  Optional<ClaimRecord> find(IntentKey key);

  /**
   * Returns the downstream idempotency key this version derives for an intent: {@value
   * #DOWNSTREAM_KEY_PREFIX} followed by the first 40 hex digits of SHA-256 over a version tag, the
   * scope and the key (each length-prefixed, so no two intents share an input). It is stable across
   * attempts, takeovers, processes and restarts; the key stored with a claim is the one its
   * attempts send, even if a later version derives keys differently.
   *
   * @param key the intent
   * @return 44 characters, safe in HTTP headers
   */
  static String downstreamKey(IntentKey key) {
    Objects.requireNonNull(key, "key");
    String input =
        "onceonly-downstream-v1\n"
            + key.scope().length()
            + ':'
            + key.scope()
            + '\n'
            + key.key().length()
            + ':'
            + key.key();
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(input.getBytes(StandardCharsets.UTF_8));
      return DOWNSTREAM_KEY_PREFIX + HexFormat.of().formatHex(digest).substring(0, 40);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }
}
