package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.micrometer.OnceOnlyMetrics;
import dev.onceonly.micrometer.StoreGauges;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteConfig;

/**
 * The Micrometer registration in a real context on a SQLite file: with a {@link MeterRegistry}
 * bean, the store's steps are counted and its rows gauged; without one, nothing of Micrometer is
 * declared.
 */
class OnceOnlyMetricsAutoConfigurationTest {
  @TempDir Path dir;

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                OnceOnlyAutoConfiguration.class, OnceOnlyMetricsAutoConfiguration.class))
        .withBean(
            DataSource.class,
            () ->
                OnceOnlyAutoConfigurationTest.sqlite(
                    dir.resolve("app.db"), SQLiteConfig.TransactionMode.IMMEDIATE));
  }

  @Test
  void withARegistryTheStoresStepsAreCountedAndItsRowsGauged() {
    runner()
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(OnceOnlyMetrics.class);
              assertThat(context).hasSingleBean(StoreGauges.class);
              OnceOnly once = context.getBean(OnceOnly.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              once.receipts()
                  .execute(IntentKey.of("s", "k"), "charge", Map.of(), String.class, tx -> "ok");
              once.receipts()
                  .execute(IntentKey.of("s", "k"), "charge", Map.of(), String.class, tx -> "ok");
              once.intents().register(IntentKey.of("s", "pending"), "ship", Map.of());
              assertThat(once.events().drain(Duration.ofSeconds(10))).isTrue();
              assertThat(outcomes(registry, "charge", "repeated")).isEqualTo(1.0);
              context.getBean(StoreGauges.class).sample();
              assertThat(registry.get("onceonly.intents.pending").gauge().value()).isEqualTo(1.0);
              assertThat(registry.get("onceonly.events.dropped").functionCounter().count())
                  .isZero();
            });
  }

  @Test
  void withoutARegistryNothingOfMicrometerIsDeclared() {
    runner()
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(OnceOnly.class);
              assertThat(context).doesNotHaveBean(OnceOnlyMetrics.class);
              assertThat(context).doesNotHaveBean(StoreGauges.class);
            });
  }

  /** The count of {@code onceonly.receipts.outcomes} for one operation and outcome. */
  static double outcomes(MeterRegistry registry, String operation, String outcome) {
    return registry
        .get("onceonly.receipts.outcomes")
        .tags("operation", operation, "outcome", outcome)
        .counter()
        .count();
  }
}
