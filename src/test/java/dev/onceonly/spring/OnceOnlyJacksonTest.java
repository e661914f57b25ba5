package dev.onceonly.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.SendResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The auto-configured {@code OnceOnly} beside the Jackson auto-configuration of the Boot line under
 * test, on a real SQLite file. On Boot 4 ({@code -Pspring-boot-4}) the context holds Jackson 3's
 * {@code JsonMapper} and no Jackson 2 {@code ObjectMapper}: a Jackson 3 tree made by that bean is
 * sent as a message payload and stored as its data, and a result of {@code java.time} values is
 * stored and repeated, with nothing configured for Jackson.
 */
class OnceOnlyJacksonTest {
  @TempDir Path dir;

  private static final boolean BOOT4 = SpringBootVersion.getVersion().startsWith("4.");

  /** A result of java.time values. */
  public record Delivered(Instant at, LocalDate day, ZonedDateTime local, Duration took) {}

  private static final Delivered DELIVERED =
      new Delivered(
          Instant.parse("2026-03-29T01:30:00.123456789Z"),
          LocalDate.of(2026, 3, 29),
          ZonedDateTime.of(2026, 3, 29, 3, 30, 0, 5, ZoneId.of("Europe/Madrid")),
          Duration.ofMillis(-1500));

  /** OnceOnly's auto-configuration and the Jackson auto-configuration of this Boot line. */
  private ApplicationContextRunner runner(Path file) {
    return OnceOnlyAutoConfigurationTest.onSqlite(
        file,
        OnceOnlyAutoConfigurationTest.present(
            "dev.onceonly.spring.OnceOnlyAutoConfiguration",
            "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
            "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration"));
  }

  @Test
  void aJackson3TreeAndAJavaTimeResultWorkWithNothingConfigured() {
    Path file = dir.resolve("app.db");
    IntentKey key = IntentKey.of("u-1", "delivery-1");
    runner(file)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              if (BOOT4) {
                assertThat(context).hasSingleBean(JsonMapper.class);
                assertThat(context).doesNotHaveBean(ObjectMapper.class);
              }
              JsonMapper json =
                  context.getBeanProvider(JsonMapper.class).getIfAvailable(JsonMapper::new);
              JsonNode payload =
                  json.readTree("{\"order\":\"A-1\",\"lines\":[{\"sku\":\"x\",\"qty\":2}]}");
              OnceOnly once = context.getBean(OnceOnly.class);
              assertThat(once.queue().send("shipping", "A-1", payload).status())
                  .isEqualTo(SendResult.Status.SENT);
              assertThat(
                      once.receipts()
                          .execute(
                              key,
                              "deliver",
                              Map.of("order", "A-1"),
                              Delivered.class,
                              c -> DELIVERED))
                  .isInstanceOf(Outcome.Created.class);
            });
    runner(file)
        .run(
            context -> {
              Outcome<Delivered> again =
                  context
                      .getBean(OnceOnly.class)
                      .receipts()
                      .execute(
                          key,
                          "deliver",
                          Map.of("order", "A-1"),
                          Delivered.class,
                          c -> {
                            throw new AssertionError("the effect ran again");
                          });
              assertThat(again).isInstanceOf(Outcome.Repeated.class);
              assertThat(again.toOptional()).contains(DELIVERED);
            });
    try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
      List<Delivery> received = once.queue().receive("shipping", 10, Duration.ofMinutes(5));
      assertThat(received).hasSize(1);
      assertThat(received.get(0).payload().toString())
          .isEqualTo("{\"lines\":[{\"qty\":2,\"sku\":\"x\"}],\"order\":\"A-1\"}");
    }
  }
}
