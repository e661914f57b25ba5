package dev.onceonly.internal.db;

import dev.onceonly.Durability;
import dev.onceonly.DurabilityException;

/**
 * What {@code OnceOnlyBuilder.build()} does with the {@link Durability} of the server it writes to:
 * logs once, at WARNING, what may be lost, and refuses a store that must have a synchronous standby
 * and has none.
 */
public final class DurabilityCheck {
  private static final System.Logger LOG = System.getLogger("dev.onceonly.OnceOnly");

  private DurabilityCheck() {}

  /**
   * Reads the durability of the server behind {@code database}, logs its risks once, and throws
   * when {@code requireSynchronousReplication} is set and no synchronous standby confirms commits.
   *
   * @param database the new store's database
   * @param description what the store runs on, for people
   * @param requireSynchronousReplication whether to refuse a store without a synchronous standby
   * @throws DurabilityException if required and the server has no synchronous standby
   */
  public static void run(
      Database database, String description, boolean requireSynchronousReplication) {
    Durability d = database.read(c -> database.sql().durability(c));
    if (requireSynchronousReplication && !d.failoverSafe()) {
      throw new DurabilityException(
          "requireSynchronousReplication is set, but on "
              + description
              + " "
              + String.join("; ", d.risks())
              + " (settings read: "
              + d.settings()
              + ")",
          d);
    }
    if (!d.risks().isEmpty()) {
      LOG.log(
          System.Logger.Level.WARNING,
          "{0}: receipts already answered may be lost: {1} (settings read: {2})",
          description,
          String.join("; ", d.risks()),
          d.settings());
    }
  }
}
