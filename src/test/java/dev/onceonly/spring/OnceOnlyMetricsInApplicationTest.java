package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * OnceOnly's meters in a Boot application as users run one: every auto-configuration on the class
 * path (Actuator's among them), a SQLite file through Boot's pooled data source, and the registry
 * either Actuator's own (a {@code SimpleMeterRegistry} from its defaults) or one the application
 * declares. The {@code onceonly.*} meters are in that registry after a receipts step ran.
 */
class OnceOnlyMetricsInApplicationTest {
  @TempDir Path dir;

  /** An application with no registry of its own: Actuator creates one. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class ActuatorApplication {}

  /** An application that declares its own registry. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class OwnRegistryApplication {
    @Bean
    MeterRegistry applicationRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Test
  void actuatorsOwnRegistryGetsTheMeters() {
    try (ConfigurableApplicationContext context = start(ActuatorApplication.class)) {
      assertMetersAfterASteps(context);
    }
  }

  @Test
  void theApplicationsRegistryGetsTheMeters() {
    try (ConfigurableApplicationContext context = start(OwnRegistryApplication.class)) {
      assertThat(context.getBean(MeterRegistry.class))
          .isSameAs(context.getBean("applicationRegistry"));
      assertMetersAfterASteps(context);
    }
  }

  private ConfigurableApplicationContext start(Class<?> application) {
    return new SpringApplicationBuilder(application)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(
            Map.of("spring.datasource.url", SqliteSpringTransactionTest.url(dir.resolve("app.db"))))
        .run();
  }

  private static void assertMetersAfterASteps(ConfigurableApplicationContext context) {
    OnceOnly once = context.getBean(OnceOnly.class);
    MeterRegistry registry = context.getBean(MeterRegistry.class);
    for (int i = 0; i < 2; i++) {
      once.receipts().execute(IntentKey.of("s", "k"), "charge", Map.of(), String.class, tx -> "ok");
    }
    assertThat(once.events().drain(Duration.ofSeconds(30))).isTrue();
    Set<String> names = new TreeSet<>();
    for (Meter m : registry.getMeters()) {
      if (m.getId().getName().startsWith("onceonly.")) {
        names.add(m.getId().getName());
      }
    }
    assertThat(names)
        .as("onceonly.* meters in the application's registry")
        .contains(
            "onceonly.receipts.outcomes", "onceonly.intents.pending", "onceonly.events.dropped");
    assertThat(OnceOnlyMetricsAutoConfigurationTest.outcomes(registry, "charge", "repeated"))
        .isEqualTo(1.0);
  }
}
