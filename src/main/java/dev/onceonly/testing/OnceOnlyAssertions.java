package dev.onceonly.testing;

import dev.onceonly.Intent;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Receipt;
import dev.onceonly.queue.DeadLetter;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Assertions on a store, counted from its rows through the public API: they hold after a restart
 * only if what they count was committed. Each throws {@link AssertionError} with a message naming
 * the key and what was found, so they work under JUnit, TestNG or plain {@code main}; there is no
 * dependency on an assertion library.
 */
public final class OnceOnlyAssertions {
  private static final int SHOWN = 10;

  private OnceOnlyAssertions() {}

  /**
   * Asserts that a key has its receipt and that the effect happened once.
   *
   * @param once the store
   * @param key the intent's key
   * @param effects how many times the application's effect happened for this key, counted by the
   *     caller from its own rows
   * @throws AssertionError if there is no receipt or the count is not 1
   */
  public static void assertOnce(OnceOnly once, IntentKey key, long effects) {
    Objects.requireNonNull(key, "key");
    Optional<Receipt> receipt = once.receipts().find(key);
    if (receipt.isEmpty() || effects != 1) {
      throw new AssertionError(
          "key "
              + key
              + ": expected one receipt and its effect once, found "
              + (receipt.isPresent() ? "1 receipt" : "no receipt")
              + " and "
              + effects
              + (effects == 1 ? " effect" : " effects"));
    }
  }

  /**
   * Asserts that a key has its receipt and that the effect happened once, counting the effect with
   * the caller's query, run in one of the store's transactions.
   *
   * @param once the store
   * @param key the intent's key
   * @param effectsQuery SQL returning one number, with one {@code ?} bound to the key's {@code
   *     key()} part, such as {@code SELECT COUNT(*) FROM charges WHERE order_id = ?}
   * @throws AssertionError if there is no receipt or the count is not 1
   */
  public static void assertOnce(OnceOnly once, IntentKey key, String effectsQuery) {
    Objects.requireNonNull(effectsQuery, "effectsQuery");
    long effects;
    try {
      effects =
          once.inTransaction(
              tx -> {
                try (PreparedStatement ps = tx.prepareStatement(effectsQuery)) {
                  ps.setString(1, key.key());
                  try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                      throw new IllegalArgumentException("effectsQuery returned no row");
                    }
                    return rs.getLong(1);
                  }
                }
              });
    } catch (SQLException e) {
      throw new IllegalArgumentException("effectsQuery failed: " + e.getMessage(), e);
    }
    assertOnce(once, key, effects);
  }

  /**
   * Asserts that every registered intent has its receipt: nothing registered waits to be done.
   *
   * @param once the store
   * @throws AssertionError naming the first pending intents otherwise
   */
  public static void assertNoPendingIntents(OnceOnly once) {
    List<Intent> pending = once.intents().pending(SHOWN);
    if (!pending.isEmpty()) {
      throw new AssertionError(
          "expected no pending intent, found "
              + once.maintenance().status().pendingIntents()
              + ": "
              + pending.stream().map(i -> i.key().toString()).collect(Collectors.joining(", ")));
    }
  }

  /**
   * Asserts that a queue has no dead letter.
   *
   * @param once the store
   * @param queue the queue's name
   * @throws AssertionError naming the first dead letters and their last errors otherwise
   */
  public static void assertNoDeadLetters(OnceOnly once, String queue) {
    List<DeadLetter> dead = once.queue().deadLetters(queue, SHOWN);
    if (!dead.isEmpty()) {
      throw new AssertionError(
          "expected no dead letter in queue "
              + queue
              + ", found: "
              + dead.stream()
                  .map(
                      d -> d.key() + " after " + d.attempts() + " attempts (" + d.lastError() + ")")
                  .collect(Collectors.joining(", ")));
    }
  }

  /**
   * Asserts that no queue of the store has a dead letter.
   *
   * @param once the store
   * @throws AssertionError with the count per queue otherwise
   */
  public static void assertNoDeadLetters(OnceOnly once) {
    var perQueue = once.maintenance().status().deadLetters();
    if (!perQueue.isEmpty()) {
      throw new AssertionError("expected no dead letter, found per queue: " + perQueue);
    }
  }
}
