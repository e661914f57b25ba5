package dev.onceonly.spring.jpa;

import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

/** The orders. */
public interface Orders extends JpaRepository<ShopOrder, String> {
  /**
   * Counts the orders of one item, with a JPQL query (which flushes pending orders first).
   *
   * @param item the item
   * @return how many
   */
  @Query("select count(o) from ShopOrder o where o.item = ?1")
  long countOfItem(String item);
}
