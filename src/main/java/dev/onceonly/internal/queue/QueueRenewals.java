package dev.onceonly.internal.queue;

import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.Lease;
import dev.onceonly.queue.QueueResult;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;

/**
 * Extends leases: one conditional update under the lease's fence, which on a queue with a
 * concurrency limit also requires the lease still live (an expired one may have been counted free).
 */
final class QueueRenewals {
  private final StoreContext core;
  private final QueueStatements sql;
  private final InstantColumns times;
  private final QueueClaims claims;

  QueueRenewals(StoreContext core, QueueStatements sql, QueueClaims claims) {
    this.core = core;
    this.sql = sql;
    this.times = core.times();
    this.claims = claims;
  }

  /** Renews {@code lease} by {@code extension} from now, or answers it lost. */
  QueueResult renew(Lease lease, Duration extension) {
    return core.database()
        .write(
            c -> {
              Instant now = core.clock().instant();
              Instant until = now.plus(extension);
              int n;
              if (claims.limited(lease.queue())) {
                try (PreparedStatement ps = c.prepareStatement(sql.renewLive)) {
                  times.set(ps, 1, until.toEpochMilli());
                  ps.setLong(2, lease.messageId());
                  ps.setLong(3, lease.fence());
                  times.set(ps, 4, now.toEpochMilli());
                  n = ps.executeUpdate();
                }
              } else {
                n = QueueDeadLetters.update(times, c, sql.renew, until.toEpochMilli(), lease);
              }
              return n == 1
                  ? new QueueResult.Renewed(
                      new Lease(
                          lease.queue(), lease.key(), lease.messageId(), lease.fence(), until))
                  : new QueueResult.LeaseLost(lease.key(), lease.fence());
            });
  }
}
