package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.external.ClaimOutcome;
import dev.onceonly.external.Failure;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Message;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * The health indicator in a real context on a SQLite file, on whichever Spring Boot line the test
 * class path holds (Boot 3.5 by default, Boot 4.0 under {@code -Pspring-boot-4}): {@code DOWN}
 * while a dead letter or an unknown external outcome exceeds its bound or the schema is not
 * current, {@code UP} again once an operator resolved it, with the figures as details. Boot 3 and
 * Boot 4 name the same Actuator types in different packages, so the health is read through their
 * common methods ({@code health()}, {@code getStatus().getCode()}, {@code getDetails()}).
 */
class OnceOnlyHealthTest {
  private static final String BOOT3_INDICATOR =
      "org.springframework.boot.actuate.health.HealthIndicator";
  private static final String BOOT4_INDICATOR =
      "org.springframework.boot.health.contributor.HealthIndicator";
  private static final String BOOT4_REGISTRY =
      "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration";
  private static final boolean BOOT4 = SpringBootVersion.getVersion().startsWith("4.");

  @TempDir Path dir;

  /** What Actuator reports for one contributor. */
  private record Reported(String status, Map<String, Object> details) {}

  /**
   * The auto-configuration and each health auto-configuration of the imports file that this build
   * compiled: the library's jar holds both; the Boot 4 build leaves out the Boot 3 one, which does
   * not compile there.
   */
  private ApplicationContextRunner runner(Path file) {
    return OnceOnlyAutoConfigurationTest.onSqlite(
        file,
        OnceOnlyAutoConfigurationTest.present(
            "dev.onceonly.spring.OnceOnlyAutoConfiguration",
            "dev.onceonly.spring.OnceOnlyHealthAutoConfiguration",
            "dev.onceonly.spring.OnceOnlyBoot4HealthAutoConfiguration"));
  }

  /** The health of the bean {@code onceOnlyHealthIndicator}, an indicator of this Boot line. */
  private static Reported health(ApplicationContext context) throws ReflectiveOperationException {
    Object indicator = context.getBean("onceOnlyHealthIndicator");
    assertThat(indicator).isInstanceOf(Class.forName(BOOT4 ? BOOT4_INDICATOR : BOOT3_INDICATOR));
    Object health = indicator.getClass().getMethod("health").invoke(indicator);
    Object status = health.getClass().getMethod("getStatus").invoke(health);
    Map<String, Object> details = new LinkedHashMap<>();
    ((Map<?, ?>) health.getClass().getMethod("getDetails").invoke(health))
        .forEach((k, v) -> details.put((String) k, v));
    return new Reported((String) status.getClass().getMethod("getCode").invoke(status), details);
  }

  @Test
  void oneIndicatorOfTheBootLineOnTheClassPath() {
    if (!BOOT4) { // the Boot 3 run sees a Boot 3 class path: Boot 4's health module kept off it
      assertThatThrownBy(() -> Class.forName(BOOT4_INDICATOR))
          .isInstanceOf(ClassNotFoundException.class);
    }
    runner(dir.resolve("line.db"))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(
                      context.getBeanNamesForType(
                          Class.forName(BOOT4 ? BOOT4_INDICATOR : BOOT3_INDICATOR)))
                  .containsExactly("onceOnlyHealthIndicator");
              assertThat(health(context).status()).isEqualTo("UP");
            });
  }

  /**
   * Actuator's registry of health contributors names this one {@code onceOnly} on both lines. On
   * Boot 4 the registry is the auto-configured bean of {@code spring-boot-health}; Boot 3's
   * auto-configuration of it is in {@code spring-boot-actuator-autoconfigure}, which the library
   * does not use, so there the registry is built as that auto-configuration builds it: from the
   * context's contributors, named by Actuator's default naming.
   */
  @Test
  void actuatorsRegistryNamesTheContributorOnceOnly() {
    ApplicationContextRunner runner = runner(dir.resolve("registry.db"));
    if (BOOT4) {
      runner = runner.withConfiguration(AutoConfigurations.of(loadable(BOOT4_REGISTRY)));
    }
    runner.run(
        context -> {
          Object registry =
              BOOT4 ? context.getBean("healthContributorRegistry") : boot3Registry(context);
          Object contributor =
              registry
                  .getClass()
                  .getMethod("getContributor", String.class)
                  .invoke(registry, "onceOnly");
          assertThat(contributor).isSameAs(context.getBean("onceOnlyHealthIndicator"));
        });
  }

  private static Object boot3Registry(ApplicationContext context)
      throws ReflectiveOperationException {
    Class<?> contributor =
        Class.forName("org.springframework.boot.actuate.health.HealthContributor");
    return Class.forName("org.springframework.boot.actuate.health.DefaultHealthContributorRegistry")
        .getConstructor(Map.class)
        .newInstance(context.getBeansOfType(contributor));
  }

  private static Class<?> loadable(String name) {
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException e) {
      throw new AssertionError(name + " is not on the test class path", e);
    }
  }

  /**
   * On the embedded PostgreSQL (fsync and synchronous_commit off, no standby) the health stays up
   * and says what may be lost; on a SQLite file with synchronous FULL nothing is at risk.
   */
  @Test
  void showsWhatTheServerMayLoseWithoutGoingDown() throws Exception {
    String db = dev.onceonly.testing.EmbeddedPg.newDatabase("health_durability");
    try (com.zaxxer.hikari.HikariDataSource pool = dev.onceonly.testing.EmbeddedPg.pool(db, 2)) {
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  OnceOnlyAutoConfigurationTest.present(
                      "dev.onceonly.spring.OnceOnlyAutoConfiguration",
                      "dev.onceonly.spring.OnceOnlyHealthAutoConfiguration",
                      "dev.onceonly.spring.OnceOnlyBoot4HealthAutoConfiguration")))
          .withBean(javax.sql.DataSource.class, () -> pool)
          .run(
              context -> {
                Reported reported = health(context);
                assertThat(reported.status()).isEqualTo("UP");
                assertThat(reported.details())
                    .containsEntry("crashSafe", false)
                    .containsEntry("failoverSafe", false)
                    .containsEntry("synchronousStandbys", 0);
                assertThat((List<?>) reported.details().get("mayBeLost"))
                    .anySatisfy(r -> assertThat(r.toString()).startsWith("fsync is off"))
                    .anySatisfy(r -> assertThat(r.toString()).startsWith("no synchronous standby"));
              });
    }
    runner(dir.resolve("durable.db"))
        .run(
            context -> {
              Reported reported = health(context);
              assertThat(reported.details())
                  .containsEntry("crashSafe", true)
                  .doesNotContainKey("mayBeLost");
            });
  }

  @Test
  void downForADeadLetterOrAnUnknownOutcomeOverTheBoundAndUpOnceResolved() {
    runner(dir.resolve("health.db"))
        .withPropertyValues(
            "onceonly.health.max-dead-letters=0", "onceonly.health.max-unknown-outcomes=0")
        .run(
            context -> {
              OnceOnly once = context.getBean(OnceOnly.class);
              assertThat(health(context).status()).isEqualTo("UP");

              once.queue().send(Message.of("mail", "m-1", Map.of("to", "x")));
              List<Delivery> got = once.queue().receive("mail", 1, Duration.ofMinutes(1));
              once.queue().deadLetter(got.get(0).lease(), "no such mailbox");
              Reported down = health(context);
              assertThat(down.status()).isEqualTo("DOWN");
              assertThat(down.details()).containsEntry("deadLetters", 1L);
              assertThat(down.details().get("problems").toString())
                  .contains("1 dead letters, more than onceonly.health.max-dead-letters 0");

              assertThat(once.queue().requeue("mail", "m-1")).isTrue(); // the operator's fix
              assertThat(health(context).status()).isEqualTo("UP");

              IntentKey key = IntentKey.of("u-1", "pay-1");
              var claim =
                  (ClaimOutcome.Claimed)
                      once.externalEffects()
                          .claim(key, "charge", Map.of("cents", 100), Duration.ofMinutes(1));
              once.externalEffects().fail(claim.claim(), Failure.unknownAfterSend("timeout"));
              Reported unknown = health(context);
              assertThat(unknown.status()).isEqualTo("DOWN");
              assertThat(unknown.details()).containsEntry("unknownOutcomes", 1L);

              once.externalEffects().resolveNotDone(key); // the operator checked the provider
              Reported up = health(context);
              assertThat(up.status()).isEqualTo("UP");
              assertThat(up.details())
                  .containsEntry("unknownOutcomes", 0L)
                  .containsEntry("schemaVersion", up.details().get("schemaVersionRequired"))
                  .doesNotContainKey("problems");
            });
  }

  @Test
  void withoutBoundsTheFiguresAreOnlyReported() {
    runner(dir.resolve("unbounded.db"))
        .run(
            context -> {
              OnceOnly once = context.getBean(OnceOnly.class);
              once.queue().send(Message.of("mail", "m-1", Map.of("to", "x")));
              var got = once.queue().receive("mail", 1, Duration.ofMinutes(1));
              once.queue().deadLetter(got.get(0).lease(), "no such mailbox");
              Reported health = health(context);
              assertThat(health.status()).isEqualTo("UP");
              assertThat(health.details()).containsEntry("deadLetters", 1L);
            });
  }

  @Test
  void downWhileTheSchemaIsNotCurrent() {
    runner(dir.resolve("empty.db"))
        .withPropertyValues("onceonly.migrations=none")
        .run(
            context -> {
              Reported health = health(context);
              assertThat(health.status()).isEqualTo("DOWN");
              assertThat(health.details()).containsEntry("schemaVersion", 0);
              assertThat(health.details().get("problems").toString())
                  .contains("schema version 0 is not the required");
            });
  }
}
