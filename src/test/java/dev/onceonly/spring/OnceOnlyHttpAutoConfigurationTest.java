package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.http.IdempotencyFilter;
import dev.onceonly.http.Route;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.sqlite.SQLiteConfig;

/**
 * When the HTTP filter's auto-configuration applies, how {@code onceonly.http.*} reaches the
 * filter, and how bad values are refused, in real contexts on SQLite files.
 */
class OnceOnlyHttpAutoConfigurationTest {
  @TempDir Path dir;

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                OnceOnlyAutoConfiguration.class, OnceOnlyHttpAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () ->
                OnceOnlyAutoConfigurationTest.sqlite(
                    dir.resolve("app.db"), SQLiteConfig.TransactionMode.IMMEDIATE));
  }

  private ApplicationContextRunner withTransactions() {
    return runner()
        .withBean(
            PlatformTransactionManager.class,
            () ->
                new DataSourceTransactionManager(
                    OnceOnlyAutoConfigurationTest.sqlite(
                        dir.resolve("app.db"), SQLiteConfig.TransactionMode.IMMEDIATE)));
  }

  private ApplicationContextRunner withTwoManagers() {
    return runner()
        .withBean(
            "jpaTransactions",
            PlatformTransactionManager.class,
            () -> new DataSourceTransactionManager(dataSource()))
        .withBean(
            "jdbcTransactions",
            PlatformTransactionManager.class,
            () -> new DataSourceTransactionManager(dataSource()))
        .withPropertyValues(
            "onceonly.http.routes[0].name=payments", "onceonly.http.routes[0].paths=/payments");
  }

  private DataSource dataSource() {
    return OnceOnlyAutoConfigurationTest.sqlite(
        dir.resolve("app.db"), SQLiteConfig.TransactionMode.IMMEDIATE);
  }

  @Test
  void twoTransactionManagersNoneIsPrimaryAreNamedWithTheWaysToChoose() {
    withTwoManagers()
        .run(
            c ->
                assertThat(c)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "found 2 with none @Primary: jpaTransactions, jdbcTransactions")
                    .hasMessageContaining("onceonly.http.transaction-manager"));
  }

  @Test
  void aPropertyNamesTheTransactionManagerOfTheTransactionalMode() {
    withTwoManagers()
        .withPropertyValues("onceonly.http.transaction-manager=jdbcTransactions")
        .run(c -> assertThat(c).hasNotFailed().hasSingleBean(IdempotencyFilter.class));
    withTwoManagers()
        .withPropertyValues("onceonly.http.transaction-manager=nosuch")
        .run(
            c ->
                assertThat(c)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("names nosuch, which is no PlatformTransactionManager"));
  }

  @Test
  void withoutRoutesThereIsNoFilter() {
    runner().run(c -> assertThat(c).doesNotHaveBean(IdempotencyFilter.class));
  }

  @Test
  void aRouteRegistersATransactionalFilterForEveryPath() {
    withTransactions()
        .withPropertyValues(
            "onceonly.http.routes[0].name=payments",
            "onceonly.http.routes[0].paths=/payments,/refunds/*",
            "onceonly.http.routes[0].methods=POST",
            "onceonly.http.routes[0].key-required=true",
            "onceonly.http.order=5")
        .run(
            c -> {
              assertThat(c).hasNotFailed();
              IdempotencyFilter filter = c.getBean(IdempotencyFilter.class);
              assertThat(filter.transactional()).isTrue();
              Route route = filter.routes().get(0);
              assertThat(route.paths()).containsExactly("/payments", "/refunds/*");
              assertThat(route.methods()).containsExactly("POST");
              assertThat(route.keyRequired()).isTrue();
              FilterRegistrationBean<?> registration = c.getBean(FilterRegistrationBean.class);
              assertThat(registration.getUrlPatterns()).containsExactly("/*");
              assertThat(registration.getOrder()).isEqualTo(5);
            });
  }

  @Test
  void thePlainModeIsChosenByProperty() {
    runner()
        .withPropertyValues(
            "onceonly.http.routes[0].name=payments",
            "onceonly.http.routes[0].paths=/payments",
            "onceonly.http.transactional=false",
            "onceonly.http.routes[0].after-crash=run-again")
        .run(
            c -> {
              IdempotencyFilter filter = c.getBean(IdempotencyFilter.class);
              assertThat(filter.transactional()).isFalse();
              assertThat(filter.routes().get(0).afterCrash()).isEqualTo(Route.AfterCrash.RUN_AGAIN);
            });
  }

  @Test
  void theTransactionalModeWithoutATransactionManagerFailsTheStart() {
    runner()
        .withPropertyValues(
            "onceonly.http.routes[0].name=payments", "onceonly.http.routes[0].paths=/payments")
        .run(
            c ->
                assertThat(c)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("onceonly.http.transactional needs one"));
  }

  @Test
  void theTransactionalModeWithoutJoinedTransactionsFailsTheStart() {
    withTransactions()
        .withPropertyValues(
            "onceonly.http.routes[0].name=payments",
            "onceonly.http.routes[0].paths=/payments",
            "onceonly.join-transactions=false")
        .run(
            c ->
                assertThat(c)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("onceonly.join-transactions=true"));
  }

  @Test
  void aBadRouteFailsTheStartNamingTheProperty() {
    withTransactions()
        .withPropertyValues(
            "onceonly.http.routes[0].name=Payments", "onceonly.http.routes[0].paths=/payments")
        .run(
            c ->
                assertThat(c)
                    .getFailure()
                    .hasStackTraceContaining("onceonly.http.routes[0]: route name must be"));
    withTransactions()
        .withPropertyValues("onceonly.http.routes[0].name=payments")
        .run(
            c ->
                assertThat(c)
                    .getFailure()
                    .hasStackTraceContaining("onceonly.http.routes[0]: route 'payments' needs"));
  }

  @Test
  void enabledFalseTurnsItOff() {
    withTransactions()
        .withPropertyValues(
            "onceonly.http.enabled=false",
            "onceonly.http.routes[0].name=payments",
            "onceonly.http.routes[0].paths=/payments")
        .run(c -> assertThat(c).doesNotHaveBean(IdempotencyFilter.class));
  }
}
