package dev.onceonly;

/**
 * Publishes a registered intent to whatever delivers it to its receiver: the SQL job queue by
 * default ({@link dev.onceonly.queue.IntentMessage#publisher}), or another transport. Publishing
 * the same intent twice must be harmless: the transport may deduplicate by key, and the receiver's
 * {@link ReceiptStore} recognises a repetition in any case.
 */
@FunctionalInterface
public interface IntentPublisher {
  /** What a publication did. */
  enum Publication {
    /** The intent was handed to the transport. */
    PUBLISHED,
    /** The transport already holds a message for this intent. */
    ALREADY_QUEUED,
    /** The transport holds a message with this key but other content; nothing was published. */
    CONFLICT,
    /**
     * The intent's message was dead-lettered and waits for an operator to requeue it; nothing was
     * published, so a reconciler does not feed a poison message back forever.
     */
    DEAD_LETTERED
  }

  /**
   * Publishes one intent.
   *
   * @param intent the intent, as registered
   * @return what happened
   */
  Publication publish(Intent intent);
}
