package dev.onceonly.readme;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.FaultTarget;
import java.util.Map;

/** docs/testing.md's fault target, as it is written there; {@link TestingDocsTest} runs it. */
// ---- docs/testing.md, a fault target ----
public final class ChargeTarget implements FaultTarget {
  public void prepare(OnceOnly once) throws Exception {
    once.useTransaction(
        tx ->
            tx.createStatement()
                .execute(
                    "CREATE TABLE IF NOT EXISTS charges (order_id TEXT NOT NULL, cents INTEGER NOT NULL)"));
  }

  public void run(OnceOnly once, String order) throws Exception {
    once.receipts()
        .execute(
            IntentKey.of("charges", order),
            "charge",
            Map.of("order", order),
            Long.class,
            tx -> Charges.insert(tx, order));
  }
}
// ---- end ----
