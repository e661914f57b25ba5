package dev.onceonly.spring.jpa;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Data JPA shop, as a team would write it from the docs: Hibernate's entities with
 * {@code @Version} ({@link ShopOrder}, {@link Shipment}), repositories, a {@code @Transactional}
 * service ({@link JpaShop}) that runs receipts steps and sends, a {@code REQUIRES_NEW} outbox
 * ({@link AuditTrail}), and a worker handler ({@link ShippingJobs}). Its tables come from {@link
 * #schema}, not from Hibernate, so that the database alone knows some constraints.
 */
@SpringBootApplication
public class JpaShopApplication {
  /**
   * The application's tables.
   *
   * @param longText the dialect's spelling of a text column the tests fill
   * @return the DDL statements
   */
  public static String[] schema(String longText) {
    return new String[] {
      "CREATE TABLE shop_orders (request_key VARCHAR(100) PRIMARY KEY, item VARCHAR(100) NOT NULL,"
          + " status VARCHAR(20) NOT NULL, version BIGINT NOT NULL)",
      // address NOT NULL: only the database knows it, the entity does not say
      "CREATE TABLE shipments (order_key VARCHAR(100) PRIMARY KEY, address "
          + longText
          + " NOT NULL, version BIGINT NOT NULL)"
    };
  }
}
