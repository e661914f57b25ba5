package dev.onceonly.spring.jpa;

import dev.onceonly.queue.Job;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A worker's handler in a Spring transaction: the completion joins it, and a write after the
 * completion fails at commit (an address only the database refuses), which rolls the completion
 * back with it.
 */
@Service
public class ShippingJobs {
  private final Shipments shipments;

  /**
   * Creates the handler.
   *
   * @param shipments the shipments
   */
  public ShippingJobs(Shipments shipments) {
    this.shipments = shipments;
  }

  /**
   * Ships the order, completing the job with the shipment, then saves a gift shipment without an
   * address.
   *
   * @param job the delivery
   */
  @Transactional
  public void handle(Job job) {
    String key = job.delivery().key();
    job.completeWith(
        tx -> {
          shipments.save(new Shipment(key, "5 Wharf Row"));
          return null;
        });
    shipments.save(new Shipment(key + "-gift", null)); // refused by the database at commit
  }
}
