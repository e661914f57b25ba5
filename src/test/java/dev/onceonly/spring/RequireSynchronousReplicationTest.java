package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.DurabilityException;
import dev.onceonly.OnceOnly;
import dev.onceonly.testing.EmbeddedPg;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code onceonly.require-synchronous-replication} in a real Boot application on the embedded
 * PostgreSQL, which has no standby at all: the start is refused with a {@link DurabilityException}
 * in the cause chain, the failure analysis says why and what to do, and no table was created.
 * Without the property the same application starts and reports that a failover may lose receipts.
 */
@ExtendWith(OutputCaptureExtension.class)
class RequireSynchronousReplicationTest {
  private final String database = EmbeddedPg.newDatabase("spring_sync");

  /** An application with nothing but the auto-configuration. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class Application {}

  @Test
  void refusesToStartWithoutASynchronousStandbyAndCreatesNothing(CapturedOutput output)
      throws SQLException {
    assertThatThrownBy(() -> start(true).close())
        .satisfies(
            e ->
                assertThat(causes(e))
                    .filteredOn(DurabilityException.class::isInstance)
                    .singleElement()
                    .satisfies(
                        d -> {
                          assertThat(d).hasMessageContaining("no synchronous standby");
                          assertThat(((DurabilityException) d).durability().failoverSafe())
                              .isFalse();
                        }));
    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .contains("OnceOnly refused to start: requireSynchronousReplication is set")
        .contains("onceonly.require-synchronous-replication=false");
    assertThat(onceOnlyTables()).as("tables created before the refusal").isZero();

    try (ConfigurableApplicationContext context = start(false)) {
      OnceOnly once = context.getBean(OnceOnly.class);
      assertThat(once.maintenance().durability().failoverSafe()).isFalse();
      assertThat(once.maintenance().durability().synchronousStandbys()).isZero();
    }
    assertThat(onceOnlyTables()).as("tables of a store that started").isPositive();
  }

  private ConfigurableApplicationContext start(boolean require) {
    return new SpringApplicationBuilder(Application.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .properties(
            Map.of(
                "spring.datasource.url",
                EmbeddedPg.url(database),
                "spring.datasource.username",
                "postgres",
                "onceonly.require-synchronous-replication",
                Boolean.toString(require)))
        .run();
  }

  private static List<Throwable> causes(Throwable e) {
    List<Throwable> chain = new ArrayList<>();
    for (Throwable t = e; t != null && !chain.contains(t); t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  private long onceOnlyTables() throws SQLException {
    try (Connection c = EmbeddedPg.connect(database);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'onceonly%'")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
