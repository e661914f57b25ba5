package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.Db;
import dev.onceonly.testing.Eventually;
import dev.onceonly.workflow.StepContext;
import dev.onceonly.workflow.StepHandler;
import dev.onceonly.workflow.Workflow;
import dev.onceonly.workflow.WorkflowState;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.sqlite.SQLiteConfig;

/**
 * A {@link StepHandler} bean annotated {@code @OnceOnlyHandler(queues = ...)} runs the steps of a
 * workflow in a Boot context, a worker per queue; what a step writes through a {@code JdbcTemplate}
 * commits with the step, and is rolled back with a step that fails. Rows read from the file after
 * the context closed.
 */
class OnceOnlyWorkflowBeansTest {
  @TempDir Path dir;

  static final Workflow ORDER =
      Workflow.named("order")
          .step("reserve", "wf-stock")
          .compensatedBy("wf-stock")
          .step("ship", "wf-ship")
          .after("reserve")
          .build();

  /** Writes its ledger row through Spring's JdbcTemplate, not the connection it is given. */
  @OnceOnlyHandler(
      queues = {"wf-stock", "wf-ship"},
      threads = 2)
  static class OrderSteps implements StepHandler {
    private final JdbcTemplate jdbc;

    OrderSteps(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @Override
    public Object run(StepContext step, Connection tx) {
      String order = step.input().get("order").asText();
      String entry =
          step.compensation() ? "released" : step.step().equals("reserve") ? "reserved" : "shipped";
      jdbc.update("INSERT INTO ledger VALUES (?, ?)", order, entry);
      if (entry.equals("shipped") && step.input().path("undeliverable").asBoolean()) {
        throw new InvalidRequestException("address", "no carrier delivers there");
      }
      return Map.of("entry", entry);
    }
  }

  /** The application's JDBC beans, as Boot's own auto-configuration would make them. */
  @Configuration(proxyBeanMethods = false)
  static class Jdbc {
    @Bean
    PlatformTransactionManager transactionManager(DataSource dataSource) {
      return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    JdbcTemplate jdbcTemplate(DataSource dataSource) {
      return new JdbcTemplate(dataSource);
    }
  }

  @Test
  void aStepBeanRunsEachStepInTheTransactionOfItsCompletion() throws Exception {
    Path file = dir.resolve("shop.db");
    Db.exec(file, "CREATE TABLE ledger (order_id TEXT NOT NULL, entry TEXT NOT NULL)");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () ->
                OnceOnlyAutoConfigurationTest.sqlite(file, SQLiteConfig.TransactionMode.IMMEDIATE))
        .withUserConfiguration(Jdbc.class)
        .withBean("orderSteps", OrderSteps.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(OnceOnlyWorkers.class).workers())
                  .containsOnlyKeys("orderSteps:wf-stock", "orderSteps:wf-ship");
              OnceOnly once = context.getBean(OnceOnly.class);
              once.workflows().start(ORDER, "o-1", Map.of("order", "o-1"));
              once.workflows().start(ORDER, "o-2", Map.of("order", "o-2", "undeliverable", true));
              Eventually.await(
                  Duration.ofSeconds(60),
                  "both runs finished",
                  () ->
                      once.workflows().find("o-1").orElseThrow().state().finished()
                          && once.workflows().find("o-2").orElseThrow().state().finished());
              assertThat(once.workflows().find("o-1").orElseThrow().state())
                  .isEqualTo(WorkflowState.COMPLETED);
              assertThat(once.workflows().find("o-2").orElseThrow().state())
                  .isEqualTo(WorkflowState.FAILED);
            });
    assertThat(Db.strings(file, "SELECT entry FROM ledger WHERE order_id = 'o-1' ORDER BY rowid"))
        .containsExactly("reserved", "shipped");
    // The failed shipment's row went with its rolled-back transaction; the release ran once.
    assertThat(Db.strings(file, "SELECT entry FROM ledger WHERE order_id = 'o-2' ORDER BY rowid"))
        .containsExactly("reserved", "released");
    assertThat(Db.count(file, "SELECT COUNT(*) FROM onceonly_messages")).isZero();
  }

  @OnceOnlyHandler(
      queue = "a",
      queues = {"b"})
  static class Both implements StepHandler {
    @Override
    public Object run(StepContext step, Connection tx) {
      return null;
    }
  }

  @Test
  void anAnnotationNamingBothQueueAndQueuesFailsTheStart() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () ->
                OnceOnlyAutoConfigurationTest.sqlite(
                    dir.resolve("both.db"), SQLiteConfig.TransactionMode.IMMEDIATE))
        .withBean("both", Both.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasStackTraceContaining(
                      "@OnceOnlyHandler on bean 'both' names both queue and queues");
            });
  }
}
