package dev.onceonly;

import java.util.List;

/**
 * Keeps messages that cannot be processed (bad schema, a body that does not match its registered
 * intent) before they are acknowledged, so that nothing is lost silently. Bounded: the reason is
 * cut to {@link OnceOnlyBuilder#rejectionReasonChars} characters and the body to an excerpt of
 * {@link OnceOnlyBuilder#rejectionBodyBytes} UTF-8 bytes, so a hostile message cannot fill the
 * disk. Idempotent per delivery id. Thread-safe.
 */
public interface RejectionStore {

  /**
   * Records a rejected delivery.
   *
   * @param deliveryId the delivery's id (a stream entry id, a lease token), 1 to 200 characters
   * @param body the message body as received (may be any text, even invalid JSON)
   * @param reason why it was rejected
   * @return {@code true} if recorded now, {@code false} if this delivery id was already recorded
   * @throws InvalidRequestException if the delivery id is blank or too long, or holds a control
   *     character or an unpaired surrogate
   */
  boolean record(String deliveryId, String body, String reason);

  /**
   * Lists recorded rejections, oldest first.
   *
   * @param limit the most to return, from 1 to 10,000
   * @return the rejections
   */
  List<Rejection> list(int limit);

  /** {@return how many rejections are recorded} */
  long count();
}
