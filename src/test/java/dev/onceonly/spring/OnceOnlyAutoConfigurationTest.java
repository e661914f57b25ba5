package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.CanonicalizationException;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.SchemaVersionException;
import dev.onceonly.testing.SqliteDataSources;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The auto-configuration in real contexts on SQLite files: when it applies and when it backs off,
 * how the properties reach the builder, how bad values are refused, and why a SQLite data source
 * must begin its transactions {@code IMMEDIATE}.
 */
class OnceOnlyAutoConfigurationTest {
  @TempDir Path dir;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class));

  static SQLiteDataSource sqlite(Path file, SQLiteConfig.TransactionMode mode) {
    return SqliteDataSources.wal(file, mode, 10_000);
  }

  /**
   * The classes of {@code names} that this build has: the library's jar holds the
   * auto-configurations of both Boot lines, but the Boot 4 build leaves out the Boot 3 ones, which
   * do not compile there, and each line has its own names for Spring's.
   */
  static Class<?>[] present(String... names) {
    return java.util.Arrays.stream(names)
        .flatMap(
            name -> {
              try {
                return java.util.stream.Stream.of(Class.forName(name));
              } catch (ClassNotFoundException otherLine) {
                return java.util.stream.Stream.empty();
              }
            })
        .toArray(Class<?>[]::new);
  }

  /** A runner of {@code configurations} on a SQLite file whose transactions begin IMMEDIATE. */
  static ApplicationContextRunner onSqlite(Path file, Class<?>... configurations) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(configurations))
        .withBean(DataSource.class, () -> sqlite(file, SQLiteConfig.TransactionMode.IMMEDIATE));
  }

  private ApplicationContextRunner on(Path file) {
    return runner.withBean(
        DataSource.class, () -> sqlite(file, SQLiteConfig.TransactionMode.IMMEDIATE));
  }

  @Test
  void opensOnTheApplicationsDataSourceAndCreatesTheTables() throws SQLException {
    Path file = dir.resolve("app.db");
    on(file).run(context -> assertThat(context).hasSingleBean(OnceOnly.class));
    assertThat(tables(file, "onceonly_receipts")).isEqualTo(1);
  }

  @Test
  void backsOffForTheApplicationsOwnOnceOnly() throws SQLException {
    Path file = dir.resolve("own.db");
    on(file)
        .withUserConfiguration(OwnOnceOnly.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(OnceOnly.class);
              assertThat(context).hasBean("myOnceOnly").doesNotHaveBean("onceOnly");
            });
    assertThat(tables(file, "mine_receipts")).isEqualTo(1);
    assertThat(tables(file, "onceonly_receipts")).isZero();
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnOnceOnly {
    @Bean
    OnceOnly myOnceOnly(DataSource dataSource) {
      return OnceOnly.builder().dataSource(dataSource).tablePrefix("mine_").build();
    }
  }

  @Test
  void doesNothingWithoutADataSource() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).doesNotHaveBean(OnceOnly.class);
        });
  }

  @Test
  void doesNothingWithTwoDataSourcesAndNoPrimary() {
    runner
        .withBean(
            "one",
            DataSource.class,
            () -> sqlite(dir.resolve("one.db"), SQLiteConfig.TransactionMode.IMMEDIATE))
        .withBean(
            "two",
            DataSource.class,
            () -> sqlite(dir.resolve("two.db"), SQLiteConfig.TransactionMode.IMMEDIATE))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OnceOnly.class));
  }

  @Test
  void propertiesReachTheBuilder() throws SQLException {
    Path file = dir.resolve("props.db");
    on(file)
        .withPropertyValues(
            "onceonly.table-prefix=shop_",
            "onceonly.result-retention=2d",
            "onceonly.canonicalizer.max-input-bytes=64",
            "onceonly.retry.max-attempts=3",
            "onceonly.health.max-dead-letters=5")
        .run(
            context -> {
              OnceOnlyProperties p = context.getBean(OnceOnlyProperties.class);
              assertThat(p.resultRetention()).hasDays(2);
              assertThat(p.retry().maxAttempts()).isEqualTo(3);
              assertThat(p.health().maxDeadLetters()).isEqualTo(5L);
              assertThat(p.migrations()).isEqualTo(OnceOnly.Migrations.APPLY);
              OnceOnly once = context.getBean(OnceOnly.class);
              assertThatThrownBy(
                      () ->
                          once.intents()
                              .register(
                                  IntentKey.of("u-1", "k-1"), "op", Map.of("x", "y".repeat(100))))
                  .isInstanceOf(CanonicalizationException.class);
            });
    assertThat(tables(file, "shop_receipts")).isEqualTo(1);
    assertThat(tables(file, "onceonly_receipts")).isZero();
    assertThat(rows(file, "SELECT COUNT(*) FROM shop_intents")).isZero(); // refused: none written
  }

  @Test
  void migrationsValidateRefusesAMissingSchema() throws SQLException {
    Path file = dir.resolve("validate.db");
    on(file)
        .withPropertyValues("onceonly.migrations=validate")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasRootCauseInstanceOf(SchemaVersionException.class));
    assertThat(tables(file, "onceonly_receipts")).isZero();
  }

  @Test
  void badValuesFailTheStartNamingTheProperty() {
    assertRefused("onceonly.table-prefix=Shop-", "onceonly.table-prefix: tablePrefix must match");
    assertRefused("onceonly.result-retention=0s", "onceonly.result-retention:");
    assertRefused("onceonly.retry.max-attempts=0", "onceonly.retry: maxAttempts must be > 0");
    assertRefused("onceonly.canonicalizer.max-depth=5000", "onceonly.canonicalizer:");
    assertRefused("onceonly.rejections.reason-chars=3", "rejectionReasonChars must be >= 16");
    assertRefused(
        "onceonly.reconciler.enabled=true",
        "onceonly.reconciler: queue must be set when the reconciler is enabled");
    assertRefused("onceonly.purge.batch-size=0", "onceonly.purge.batch-size: must be between 1");
    assertRefused("onceonly.health.max-dead-letters=-1", "onceonly.health.max-dead-letters");
    on(dir.resolve("refused.db"))
        .withPropertyValues("onceonly.migrations=sometimes")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining(
                        "Failed to bind properties under 'onceonly.migrations'")
                    .hasStackTraceContaining("No enum constant"));
  }

  private void assertRefused(String property, String message) {
    on(dir.resolve("refused.db"))
        .withPropertyValues(property)
        .run(
            context ->
                assertThat(context)
                    .as(property)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(message));
  }

  @Test
  void aSqliteDataSourceWithDeferredTransactionsIsRefused() {
    runner
        .withBean(
            DataSource.class,
            () -> sqlite(dir.resolve("deferred.db"), SQLiteConfig.TransactionMode.DEFERRED))
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("begins DEFERRED transactions")
                    .hasMessageContaining("transaction_mode=IMMEDIATE"));
  }

  /**
   * Why deferred transactions are refused: a Spring transaction that read before another one
   * committed a write cannot write any more. Its joined step fails with {@code SQLITE_BUSY} at
   * once, whatever the busy timeout, while with {@code IMMEDIATE} it would have waited its turn.
   */
  @Test
  void withDeferredTransactionsAJoinedStepAfterAnotherCommitFailsBusy() throws SQLException {
    Path file = dir.resolve("busy.db");
    runner
        .withUserConfiguration(DeferredSqlite.class)
        .withPropertyValues("test.file=" + file, "onceonly.sqlite.allow-deferred-transactions=true")
        .run(
            context -> {
              OnceOnly once = context.getBean(OnceOnly.class);
              TransactionTemplate tx = context.getBean(TransactionTemplate.class);
              JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
              CountDownLatch read = new CountDownLatch(1);
              CountDownLatch written = new CountDownLatch(1);
              ExecutorService other = Executors.newSingleThreadExecutor();
              try {
                Future<Object> late =
                    other.submit(
                        () ->
                            tx.execute(
                                s -> {
                                  // reads on Spring's connection: the transaction's snapshot
                                  jdbc.queryForObject(
                                      "SELECT COUNT(*) FROM onceonly_intents", Long.class);
                                  read.countDown();
                                  await(written);
                                  return once.intents()
                                      .register(IntentKey.of("u", "second"), "op", Map.of());
                                }));
                await(read);
                tx.executeWithoutResult(
                    s -> once.intents().register(IntentKey.of("u", "first"), "op", Map.of()));
                written.countDown();
                assertThatThrownBy(() -> late.get(30, TimeUnit.SECONDS))
                    .hasStackTraceContaining("SQLITE_BUSY");
              } finally {
                other.shutdownNow();
              }
            });
    assertThat(rows(file, "SELECT COUNT(*) FROM onceonly_intents")).isEqualTo(1);
  }

  @Configuration(proxyBeanMethods = false)
  static class DeferredSqlite {
    @Bean
    DataSource dataSource(@Value("${test.file}") Path file) {
      return sqlite(file, SQLiteConfig.TransactionMode.DEFERRED);
    }

    @Bean
    TransactionTemplate transactions(DataSource dataSource) {
      return new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static long tables(Path file, String name) throws SQLException {
    return rows(
        file, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '" + name + "'");
  }

  static long rows(Path file, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
