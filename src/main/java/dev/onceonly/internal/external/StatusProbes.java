package dev.onceonly.internal.external;

import dev.onceonly.IntentKey;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.external.ClaimRecord;
import dev.onceonly.external.ClaimState;
import dev.onceonly.external.ProbeAnswer;
import dev.onceonly.external.ProbePolicy;
import dev.onceonly.external.ProbeReport;
import dev.onceonly.external.StatusProbe;
import dev.onceonly.internal.receipts.StoreContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the status probes of unknown claims in three steps per claim, so that no transaction is open
 * and no connection held while a provider is asked: a short write transaction takes a batch of due
 * claims (each locked and checked again, its probe count and next probe time stored before it is
 * probed); each probe runs on a thread of its own, bounded by the policy's timeout; a short write
 * transaction per answer applies it with a compare-and-set on the state and fence the claim was
 * taken with, so an answer that finds the claim settled meanwhile changes nothing.
 */
final class StatusProbes {
  /** Sweeps the claims whose lease ran out, in the caller's transaction. */
  @FunctionalInterface
  interface Sweep {
    void sweep(Connection c, int limit) throws SQLException;
  }

  private static final int BATCH = 100;
  private static final int MAX_BATCHES = 100;
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final StoreContext core;
  private final ClaimRows rows;
  private final Map<String, StatusProbe> probes;
  private final ProbePolicy policy;
  private final Sweep sweep;
  private final String due;

  StatusProbes(
      StoreContext core,
      String prefix,
      ClaimRows rows,
      Map<String, StatusProbe> probes,
      ProbePolicy policy,
      Sweep sweep) {
    this.core = core;
    this.rows = rows;
    this.probes = Map.copyOf(probes);
    this.policy = Objects.requireNonNull(policy, "policy");
    this.sweep = sweep;
    this.due = dueStatement(prefix, this.probes.size());
  }

  /** Returns these probes with another sweep (a view with another retry policy). */
  StatusProbes withSweep(Sweep other) {
    return new StatusProbes(this, other);
  }

  private StatusProbes(StatusProbes base, Sweep other) {
    this.core = base.core;
    this.rows = base.rows;
    this.probes = base.probes;
    this.policy = base.policy;
    this.sweep = other;
    this.due = base.due;
  }

  /** The due unknown claims of the operations with probes, after a key, in key order. */
  private static String dueStatement(String prefix, int operations) {
    if (operations == 0) {
      return null;
    }
    String in = String.join(", ", java.util.Collections.nCopies(operations, "?"));
    return "SELECT scope, intent_key FROM "
        + prefix
        + "claims WHERE state = ? AND operation IN ("
        + in
        + ") AND (next_probe_at IS NULL OR next_probe_at <= ?)"
        + " AND (scope > ? OR (scope = ? AND intent_key > ?))"
        + " ORDER BY scope, intent_key LIMIT ?";
  }

  /** A claim taken for a probe: its evidence and the fence its answer must still find. */
  private record Taken(ClaimRecord record, long fence) {}

  /** A batch of taken claims, and the last key the batch's scan reached. */
  private record Batch(List<Taken> taken, IntentKey last, int scanned) {}

  /** What one probe came to, before it is applied. */
  private record Result(String kind, ProbeAnswer answer, String json, String reason, long nanos) {}

  /** Probes every due unknown claim of an operation with a probe, in bounded batches. */
  ProbeReport run() {
    if (probes.isEmpty()) {
      return ProbeReport.NONE;
    }
    ProbeReport report = ProbeReport.NONE;
    IntentKey after = IntentKey.of("", "");
    for (int b = 0; b < MAX_BATCHES; b++) {
      IntentKey from = after;
      Batch batch = core.database().write(c -> take(c, from));
      for (Taken t : batch.taken()) {
        if (Thread.currentThread().isInterrupted()) {
          return report; // the claims not probed yet wait for their next probe time
        }
        report = report.plus(apply(t, probe(t.record())));
      }
      if (batch.scanned() < BATCH) {
        break;
      }
      after = batch.last();
    }
    return report;
  }

  private Batch take(Connection c, IntentKey after) throws SQLException {
    sweep.sweep(c, BATCH);
    long now = core.clock().millis();
    List<IntentKey> keys = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(due)) {
      int i = 1;
      ps.setString(i++, ClaimState.UNKNOWN.name());
      for (String operation : probes.keySet()) {
        ps.setString(i++, operation);
      }
      core.times().set(ps, i++, now);
      ps.setString(i++, after.scope());
      ps.setString(i++, after.scope());
      ps.setString(i++, after.key());
      ps.setInt(i, BATCH);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          keys.add(IntentKey.of(rs.getString(1), rs.getString(2)));
        }
      }
    }
    List<Taken> taken = new ArrayList<>();
    for (IntentKey key : keys) {
      ClaimRow row = rows.lockAndSelect(c, key);
      if (row == null
          || row.state != ClaimState.UNKNOWN
          || !probes.containsKey(row.operation)
          || (row.nextProbeAt != null && row.nextProbeAt > now)) {
        continue; // settled, or taken by another instance, between the scan and the lock
      }
      row.probes++;
      row.nextProbeAt = now + policy.delayAfter(row.probes, ThreadLocalRandom.current()).toMillis();
      rows.mustUpdate(c, row);
      taken.add(new Taken(row.toRecord(), row.fence));
    }
    IntentKey last = keys.isEmpty() ? after : keys.get(keys.size() - 1);
    return new Batch(taken, last, keys.size());
  }

  /** Runs one probe on a thread of its own, for at most the policy's timeout. */
  private Result probe(ClaimRecord claim) {
    StatusProbe probe = probes.get(claim.operation());
    CompletableFuture<ProbeAnswer> answer = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                answer.complete(probe.probe(claim));
              } catch (Throwable e) { // the probe's own thread: whatever it threw is its answer
                answer.completeExceptionally(e);
              }
            },
            "onceonly-probe-" + THREADS.incrementAndGet());
    thread.setDaemon(true);
    long started = System.nanoTime();
    thread.start();
    try {
      ProbeAnswer a = answer.get(policy.timeout().toNanos(), TimeUnit.NANOSECONDS);
      return answered(a, System.nanoTime() - started);
    } catch (TimeoutException e) {
      thread.interrupt();
      String why = "no answer within " + policy.timeout().toMillis() + " ms";
      return new Result("timed_out", null, null, why, System.nanoTime() - started);
    } catch (ExecutionException e) {
      return failed(String.valueOf(e.getCause()), System.nanoTime() - started);
    } catch (InterruptedException e) {
      thread.interrupt();
      Thread.currentThread().interrupt();
      return failed("the probing thread was interrupted", System.nanoTime() - started);
    }
  }

  private Result answered(ProbeAnswer a, long nanos) {
    if (a instanceof ProbeAnswer.Applied applied) {
      try {
        return new Result("applied", a, rows.serialize(applied.result()), null, nanos);
      } catch (IllegalArgumentException e) {
        return failed(e.getMessage(), nanos);
      }
    }
    if (a instanceof ProbeAnswer.NotApplied n) {
      return new Result("not_applied", a, null, n.reason(), nanos);
    }
    if (a instanceof ProbeAnswer.StillUnknown u) {
      return new Result("still_unknown", a, null, u.reason(), nanos);
    }
    return failed("the probe answered null", nanos);
  }

  private static Result failed(String why, long nanos) {
    return new Result("failed", null, null, why, nanos);
  }

  /** Applies one answer in its own transaction, if the claim is still as it was taken. */
  private ProbeReport apply(Taken t, Result r) {
    boolean settled = core.database().write(c -> applyIn(c, t, r));
    boolean settling =
        r.answer() instanceof ProbeAnswer.Applied || r.answer() instanceof ProbeAnswer.NotApplied;
    if (core.events().enabled()) {
      core.events()
          .publish(
              new OnceOnlyEvent.ClaimProbed(
                  t.record().operation(),
                  r.kind(),
                  settled,
                  r.reason(),
                  Duration.ofNanos(r.nanos())));
    }
    return new ProbeReport(
        1,
        settled && r.answer() instanceof ProbeAnswer.Applied ? 1 : 0,
        settled && r.answer() instanceof ProbeAnswer.NotApplied ? 1 : 0,
        r.kind().equals("still_unknown") ? 1 : 0,
        r.kind().equals("failed") ? 1 : 0,
        r.kind().equals("timed_out") ? 1 : 0,
        settling && !settled ? 1 : 0);
  }

  private boolean applyIn(Connection c, Taken t, Result r) throws SQLException {
    ClaimRow row = rows.lockAndSelect(c, t.record().key());
    if (row == null || row.state != ClaimState.UNKNOWN || row.fence != t.fence()) {
      return false; // settled meanwhile: this answer is about a claim that moved on
    }
    long now = core.clock().millis();
    row.lastProbeAt = now;
    row.lastProbeAnswer = ClaimRows.bound(text(r));
    if (r.answer() instanceof ProbeAnswer.Applied) {
      rows.settleDone(c, row, r.json(), now);
      return true;
    }
    if (r.answer() instanceof ProbeAnswer.NotApplied) {
      rows.settleNotDone(c, row, "status probe: " + r.reason(), now);
      return true;
    }
    rows.mustUpdate(c, row); // still unknown: only the answer is recorded; the next time stays
    return false;
  }

  /** The last probe answer as stored and shown. */
  private static String text(Result r) {
    switch (r.kind()) {
      case "applied":
        return "applied";
      case "not_applied":
        return "not applied: " + r.reason();
      case "still_unknown":
        return "still unknown: " + r.reason();
      case "timed_out":
        return "timed out: " + r.reason();
      default:
        return "failed: " + r.reason();
    }
  }
}
