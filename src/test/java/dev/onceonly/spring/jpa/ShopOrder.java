package dev.onceonly.spring.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** An order, keyed by the client's request key, so that its insert waits for the flush. */
@Entity
@Table(name = "shop_orders")
public class ShopOrder {
  @Id
  @Column(name = "request_key")
  private String requestKey;

  private String item;
  private String status;
  @Version private Long version;

  /** For Hibernate. */
  protected ShopOrder() {}

  /**
   * A new order.
   *
   * @param requestKey the client's key
   * @param item what was ordered
   */
  public ShopOrder(String requestKey, String item) {
    this.requestKey = requestKey;
    this.item = item;
    this.status = "NEW";
  }

  /** {@return the client's key} */
  public String requestKey() {
    return requestKey;
  }

  /** {@return the status} */
  public String status() {
    return status;
  }

  /**
   * Sets the status.
   *
   * @param status the new status
   */
  public void status(String status) {
    this.status = status;
  }
}
