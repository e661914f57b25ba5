package dev.onceonly.spring.app;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * A small Spring Boot application, as a team would write it: its data source and transaction
 * manager come from Boot's auto-configuration ({@code spring.datasource.*}), OnceOnly's from the
 * library's, and a {@code @Transactional} service writes its own rows, a receipt and an outbox
 * message.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({OrderService.class})
public class ShopApplication {
  /** The application's own tables, portable between SQLite and PostgreSQL. */
  public static final String[] SCHEMA = {
    "CREATE TABLE orders (request_key VARCHAR(100) PRIMARY KEY, owner VARCHAR(100) NOT NULL,"
        + " item VARCHAR(100) NOT NULL)",
    "CREATE TABLE audit_log (entry VARCHAR(200) NOT NULL)"
  };
}
