package dev.onceonly.readme;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Job;
import java.util.Map;

/** The application's handler: charges an order once, in the transaction that acknowledges. */
final class ChargeHandler implements Handler {
  private final OnceOnly once;
  private int failuresLeft;

  ChargeHandler(OnceOnly once) {
    this(once, 0);
  }

  ChargeHandler(OnceOnly once, int failures) {
    this.once = once;
    this.failuresLeft = failures;
  }

  static IntentKey key(String order) {
    return IntentKey.of("charges", order);
  }

  @Override
  public void handle(Job job) throws Exception {
    String order = job.payload().get("order").asText();
    long cents = job.payload().get("cents").asLong();
    if (failuresLeft-- > 0) {
      throw new IllegalStateException("provider timed out");
    }
    job.completeWith(
        tx ->
            once.receipts()
                .execute(
                    tx,
                    key(order),
                    "charge",
                    Map.of("order", order, "cents", cents),
                    Long.class,
                    c -> Charges.insert(c, order, cents)));
  }
}
