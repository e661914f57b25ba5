package dev.onceonly.testing;

import dev.onceonly.Effect;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.queue.IntentMessage;
import java.sql.Connection;

/** The receiving side of an intent message: its receipts step, joined to a transaction. */
public final class IntentSteps {
  private IntentSteps() {}

  /**
   * Runs the receipts step of the intent a message carries (its key, operation and arguments)
   * inside {@code tx}, typically the transaction of {@code JobQueue.complete}.
   */
  public static <T, X extends Exception> Outcome<T> execute(
      OnceOnly once, Connection tx, IntentMessage m, Class<T> type, Effect<T, X> effect) throws X {
    return once.receipts().execute(tx, m.key(), m.operation(), m.arguments(), type, effect);
  }
}
