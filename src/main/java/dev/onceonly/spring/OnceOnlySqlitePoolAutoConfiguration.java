package dev.onceonly.spring;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Wraps the application's HikariCP pools of SQLite connections in a {@link SqlitePooledDataSource},
 * so that a transaction whose {@code BEGIN} failed busy does not leave its pooled connection
 * committing every statement of the transactions after it. See docs/spring.md.
 */
// Spring's types are the application's: nothing to re-export.
@SuppressWarnings("exports")
@AutoConfiguration
@ConditionalOnClass(name = "com.zaxxer.hikari.HikariDataSource")
public class OnceOnlySqlitePoolAutoConfiguration {
  /** Creates the auto-configuration; Spring calls it. */
  public OnceOnlySqlitePoolAutoConfiguration() {}

  /**
   * The post-processor that wraps the pools.
   *
   * @return the post-processor
   */
  @Bean
  public static BeanPostProcessor onceOnlySqlitePools() {
    return new SqlitePoolPostProcessor();
  }
}
