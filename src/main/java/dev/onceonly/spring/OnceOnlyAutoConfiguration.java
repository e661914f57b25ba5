package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.sql.Dialect;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of an {@link OnceOnly} on the application's {@link DataSource}, configured by
 * {@link OnceOnlyProperties} ({@code onceonly.*}).
 *
 * <p>It does nothing unless the context has exactly one data source (or one primary), and backs off
 * when the application defines its own {@code OnceOnly}. It runs after the data source's
 * auto-configuration (under its Boot 3 and Boot 4 names) and after Flyway and Liquibase, so that
 * {@code onceonly.migrations=validate} sees the schema they applied. With {@code
 * onceonly.join-transactions} (the default) calls without a connection join the Spring transaction
 * the calling thread is in ({@link SpringCurrentTransaction}).
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration",
      "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
      "org.springframework.boot.autoconfigure.liquibase.LiquibaseAutoConfiguration",
      "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration"
    })
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(OnceOnlyProperties.class)
public class OnceOnlyAutoConfiguration {
  /** Creates the auto-configuration; Spring calls it. */
  public OnceOnlyAutoConfiguration() {}

  /**
   * The store on the application's data source. Closed with the context; the data source is not.
   *
   * @param dataSource the application's data source
   * @param properties the {@code onceonly.*} properties
   * @param customizers the application's last words on the builder, in order
   * @param beans where the {@link OnceOnlyHandler} beans declaring queue limits are found
   * @return the open store, migrated (or validated) as configured
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @DependsOnDatabaseInitialization
  public OnceOnly onceOnly(
      DataSource dataSource,
      OnceOnlyProperties properties,
      ObjectProvider<OnceOnlyBuilderCustomizer> customizers,
      ListableBeanFactory beans) {
    OnceOnlyBuilder builder = builder(dataSource, properties);
    QueueLimitSettings.apply(builder, properties, beans);
    customizers.orderedStream().forEach(c -> c.customize(builder));
    OnceOnly once = builder.build();
    if (once.dialect() == Dialect.SQLITE && properties.joinTransactions()) {
      try {
        SqliteTransactionMode.check(dataSource, properties.sqlite());
      } catch (RuntimeException e) {
        once.close();
        throw e;
      }
    }
    return once;
  }

  /**
   * The workers of the {@link OnceOnlyHandler} beans, started once the context is refreshed and
   * closed gracefully with it.
   *
   * @param beans where the handler beans are found
   * @param once the store
   * @param properties the {@code onceonly.*} properties
   * @param decorators what wraps each handler, in order (the tracing's, for one)
   * @return the workers' lifecycle
   */
  @Bean
  @ConditionalOnMissingBean
  public OnceOnlyWorkers onceOnlyWorkers(
      ListableBeanFactory beans,
      OnceOnly once,
      OnceOnlyProperties properties,
      ObjectProvider<OnceOnlyHandlerDecorator> decorators) {
    return new OnceOnlyWorkers(beans, once, properties, decorators.orderedStream().toList());
  }

  /**
   * The reconciler and retention on a schedule, each when enabled.
   *
   * @param once the store
   * @param properties the {@code onceonly.*} properties
   * @return the schedule's lifecycle
   */
  @Bean
  @ConditionalOnMissingBean
  public OnceOnlySchedule onceOnlySchedule(OnceOnly once, OnceOnlyProperties properties) {
    return new OnceOnlySchedule(once, properties);
  }

  /** Applies the properties to a builder on {@code dataSource}. */
  static OnceOnlyBuilder builder(DataSource dataSource, OnceOnlyProperties p) {
    OnceOnlyBuilder b =
        OnceOnly.builder()
            .dataSource(dataSource)
            .tablePrefix(p.tablePrefix())
            .migrations(p.migrations())
            .resultRetention(p.resultRetention())
            .tombstoneRetention(p.tombstoneRetention())
            .scopePattern(p.scopePattern())
            .keyPattern(p.keyPattern())
            .canonicalizer(p.canonicalizer().build())
            .rejectionReasonChars(p.rejections().reasonChars())
            .rejectionBodyBytes(p.rejections().bodyBytes())
            .requireSynchronousReplication(p.requireSynchronousReplication());
    p.safeToRepeat().forEach(b::safeToRepeat);
    if (p.joinTransactions()) {
      b.currentTransaction(new SpringCurrentTransaction(dataSource));
    }
    return b;
  }
}
