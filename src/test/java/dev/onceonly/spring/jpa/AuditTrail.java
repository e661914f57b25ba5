package dev.onceonly.spring.jpa;

import dev.onceonly.OnceOnly;
import java.util.Map;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/** An audit message that must stay even when the business transaction rolls back. */
@Service
public class AuditTrail {
  private final OnceOnly once;

  /**
   * Creates the trail.
   *
   * @param once the auto-configured store
   */
  public AuditTrail(OnceOnly once) {
    this.once = once;
  }

  /**
   * Sends an audit message in a transaction of its own.
   *
   * @param key the order's key
   */
  @Transactional(propagation = Propagation.REQUIRES_NEW)
  public void record(String key) {
    once.queue().send("audit", key, Map.of("order", key));
  }
}
