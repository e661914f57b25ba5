package dev.onceonly.spring.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** A shipment of an order; its address is NOT NULL in the database only. */
@Entity
@Table(name = "shipments")
public class Shipment {
  @Id
  @Column(name = "order_key")
  private String orderKey;

  private String address;
  @Version private Long version;

  /** For Hibernate. */
  protected Shipment() {}

  /**
   * A new shipment.
   *
   * @param orderKey the order's key
   * @param address where it goes, or null (which only the database refuses)
   */
  public Shipment(String orderKey, String address) {
    this.orderKey = orderKey;
    this.address = address;
  }
}
