package dev.onceonly.spring;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.sqlite.SQLiteDataSource;

/**
 * Wraps each HikariCP pool of SQLite connections in a {@link SqlitePooledDataSource}, once the pool
 * is configured (its {@code spring.datasource.hikari.*} bound).
 */
final class SqlitePoolPostProcessor implements BeanPostProcessor {
  SqlitePoolPostProcessor() {}

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof HikariDataSource pool && isSqlite(pool)) {
      return new SqlitePooledDataSource(pool);
    }
    return bean;
  }

  private static boolean isSqlite(HikariDataSource pool) {
    String url = pool.getJdbcUrl();
    return (url != null && url.startsWith("jdbc:sqlite:"))
        || pool.getDataSource() instanceof SQLiteDataSource
        || SQLiteDataSource.class.getName().equals(pool.getDataSourceClassName());
  }
}
