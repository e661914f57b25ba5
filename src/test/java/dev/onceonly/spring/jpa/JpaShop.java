package dev.onceonly.spring.jpa;

import dev.onceonly.Effect;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import java.util.Map;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The shop's service: JPA writes before, inside and after receipts steps, in one Spring
 * transaction, written as the docs allow (a caller may catch an effect's failure and commit the
 * rest).
 */
@Service
public class JpaShop {
  private final OnceOnly once;
  private final Orders orders;
  private final Shipments shipments;
  private final AuditTrail audit;

  /**
   * Creates the service.
   *
   * @param once the auto-configured store
   * @param orders the orders
   * @param shipments the shipments
   * @param audit the audit trail
   */
  public JpaShop(OnceOnly once, Orders orders, Shipments shipments, AuditTrail audit) {
    this.once = once;
    this.orders = orders;
    this.shipments = shipments;
    this.audit = audit;
  }

  /** The carrier refused: thrown by an effect after its writes. */
  public static final class CarrierDown extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CarrierDown(String key) {
      super("carrier down for " + key);
    }
  }

  private static IntentKey key(String requestKey) {
    return IntentKey.of("shop", requestKey);
  }

  /** The shipping step of an order: once per key, its effect given. */
  private Outcome<String> ship(String requestKey, Effect<String, RuntimeException> effect) {
    return once.receipts()
        .execute(key(requestKey), "ship", Map.of("order", requestKey), String.class, effect);
  }

  /**
   * Places an order once per key: the order entity is saved inside the step.
   *
   * @param requestKey the client's key
   * @param item what is ordered
   * @return 201 or 200 with the key, or 422 for other input
   */
  @Transactional
  public String placeOrder(String requestKey, String item) {
    Outcome<String> outcome =
        once.receipts()
            .execute(
                key(requestKey),
                "place_order",
                Map.of("item", item),
                String.class,
                tx -> {
                  orders.save(new ShopOrder(requestKey, item));
                  once.queue()
                      .send(tx, dev.onceonly.queue.Message.of("shipping", requestKey, Map.of()));
                  return requestKey;
                });
    return outcome.fold(
        created -> "201 " + created.result(),
        repeated -> "200 " + repeated.result(),
        conflict -> "422",
        expired -> "410");
  }

  /**
   * The step's effect saves a shipment, then fails; the caller catches it and commits the rest.
   *
   * @param requestKey the order's key
   * @return what the caller answers
   */
  @Transactional
  public String shipThenCarrierFails(String requestKey) {
    try {
      ship(
          requestKey,
          tx -> {
            shipments.save(new Shipment(requestKey, "1 Harbour Road"));
            throw new CarrierDown(requestKey);
          });
      return "shipped";
    } catch (CarrierDown e) {
      return "carrier down, try later";
    }
  }

  /**
   * Saves an order, then runs a step whose query flushes it and whose effect fails; the caller
   * catches the failure and commits the order.
   *
   * @param requestKey the order's key
   * @return the orders of the item the effect saw
   */
  @Transactional
  public long orderThenFailingStep(String requestKey) {
    orders.save(new ShopOrder(requestKey, "kettle"));
    long[] seen = {-1};
    try {
      ship(
          requestKey,
          tx -> {
            seen[0] = orders.countOfItem("kettle"); // JPQL: Hibernate flushes the order first
            throw new CarrierDown(requestKey);
          });
    } catch (CarrierDown e) {
      // the order stays; the shipment is for later
    }
    return seen[0];
  }

  /**
   * Ships in a read-only transaction, where JPA never flushes.
   *
   * @param requestKey the order's key
   * @return the outcome's answer
   */
  @Transactional(readOnly = true)
  public String shipReadOnly(String requestKey) {
    return ship(
            requestKey,
            tx -> {
              shipments.save(new Shipment(requestKey, "2 Quay Street"));
              return "shipped";
            })
        .fold(c -> "201", r -> "200", x -> "422", e -> "410");
  }

  /**
   * A step whose effect records an audit message in a transaction of its own ({@code
   * REQUIRES_NEW}), then the caller fails: the audit message stays, the rest rolls back.
   *
   * @param requestKey the order's key
   */
  @Transactional
  public void shipWithAuditThenFail(String requestKey) {
    ship(
        requestKey,
        tx -> {
          shipments.save(new Shipment(requestKey, "3 Dock Lane"));
          audit.record(requestKey);
          return "shipped";
        });
    throw new CarrierDown(requestKey);
  }

  /**
   * A step that ships, then an order saved after it with an address the database refuses at commit:
   * the whole transaction rolls back, the receipt with it.
   *
   * @param requestKey the order's key
   */
  @Transactional
  public void shipThenFailAtCommit(String requestKey) {
    ship(
        requestKey,
        tx -> {
          shipments.save(new Shipment(requestKey, "4 Pier Walk"));
          return "shipped";
        });
    shipments.save(new Shipment(requestKey + "-gift", null)); // NOT NULL: refused at commit
  }
}
