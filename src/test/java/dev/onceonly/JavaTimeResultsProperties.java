package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the default mapper, {@code java.time} values work as results and arguments: each trial draws
 * instants across four centuries with their nanoseconds, every zone of the JDK's rules, offsets
 * from -18:00 to +18:00 and durations either side of zero, stores them as a step's result on a real
 * SQLite file, and after reopening the file the repeated step returns a result equal to the one
 * created (records compare with {@code equals}: the same instant, zone and offset, not merely the
 * same moment).
 */
class JavaTimeResultsProperties {
  @TempDir Path dir;

  private static final List<String> ZONES = ZoneId.getAvailableZoneIds().stream().sorted().toList();

  /** A result made of java.time values. */
  public record Times(
      Instant instant,
      LocalDate date,
      LocalDateTime local,
      LocalTime time,
      OffsetDateTime offset,
      ZonedDateTime zoned,
      Duration duration) {}

  @Test
  void javaTimeResultsComeBackEqualAfterReopening() {
    Trials.forAll(
        20,
        trial -> {
          SplittableRandom random = trial.random();
          List<Times> results = new java.util.ArrayList<>();
          for (int i = 0; i < 10; i++) {
            results.add(trial.input("times " + i, times(random)));
          }
          Path file = Files.createTempDirectory(dir, "db").resolve("onceonly.db");
          try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
            for (int i = 0; i < results.size(); i++) {
              Times t = results.get(i);
              Outcome<Times> first =
                  once.receipts()
                      .execute(key(i), "when", Map.of("at", t.instant()), Times.class, c -> t);
              assertThat(first).isInstanceOf(Outcome.Created.class);
            }
          }
          try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
            for (int i = 0; i < results.size(); i++) {
              Times t = results.get(i);
              Outcome<Times> again =
                  once.receipts()
                      .execute(
                          key(i),
                          "when",
                          Map.of("at", t.instant()),
                          Times.class,
                          c -> {
                            throw new AssertionError("the effect ran again");
                          });
              assertThat(again).isInstanceOf(Outcome.Repeated.class);
              assertThat(again.toOptional()).contains(t);
            }
          }
        });
  }

  /**
   * The default mapper changes nothing but {@code java.time}: arguments of other values, {@code
   * java.util.Date} and {@code Calendar} among them (written as epoch milliseconds, as before), get
   * the fingerprint a plain {@code ObjectMapper} gives them, so a request sent before an upgrade is
   * still the same request after it.
   */
  @Test
  void otherArgumentsKeepTheFingerprintsOfAPlainMapper() {
    Trials.forAll(
        20,
        trial -> {
          SplittableRandom random = trial.random();
          Map<String, Object> arguments = new java.util.LinkedHashMap<>();
          arguments.put("date", new java.util.Date(random.nextLong(-1L << 45, 1L << 45)));
          java.util.Calendar calendar =
              java.util.Calendar.getInstance(
                  java.util.TimeZone.getTimeZone(ZONES.get(random.nextInt(ZONES.size()))));
          calendar.setTimeInMillis(random.nextLong(-1L << 45, 1L << 45));
          arguments.put("calendar", calendar);
          JsonNode json = trial.json().tree(3);
          try {
            Canonicalizer.defaults().canonicalize(json);
          } catch (CanonicalizationException notIJson) {
            json = JsonNodeFactory.instance.textNode("not I-JSON");
          }
          arguments.put("json", json);
          arguments.put("number", random.nextLong());
          trial.input("arguments", arguments);
          Fingerprint expected =
              Canonicalizer.defaults()
                  .fingerprint("when", new ObjectMapper().valueToTree(arguments));
          Path file = Files.createTempDirectory(dir, "db").resolve("onceonly.db");
          try (OnceOnly once = OnceOnly.builder().sqlite(file).build()) {
            Outcome<Integer> created =
                once.receipts().execute(key(0), "when", arguments, Integer.class, c -> 1);
            assertThat(created)
                .isInstanceOfSatisfying(
                    Outcome.Created.class, c -> assertThat(c.fingerprint()).isEqualTo(expected));
          }
        });
  }

  private static IntentKey key(int i) {
    return IntentKey.of("u-1", "t-" + i);
  }

  private static Times times(SplittableRandom random) {
    long from = Instant.parse("1800-01-01T00:00:00Z").getEpochSecond();
    long to = Instant.parse("2200-01-01T00:00:00Z").getEpochSecond();
    Instant instant =
        Instant.ofEpochSecond(
            random.nextLong(from, to), random.nextInt(4) == 0 ? 0 : random.nextInt(1_000_000_000));
    ZoneId zone = ZoneId.of(ZONES.get(random.nextInt(ZONES.size())));
    ZoneOffset offset = ZoneOffset.ofTotalSeconds(random.nextInt(-18 * 3600, 18 * 3600 + 1));
    return new Times(
        instant,
        LocalDate.ofInstant(instant, zone),
        LocalDateTime.ofInstant(instant, zone),
        LocalTime.ofInstant(instant, zone),
        OffsetDateTime.ofInstant(instant, offset),
        ZonedDateTime.ofInstant(instant, zone),
        Duration.ofSeconds(
            random.nextLong(-10_000_000_000L, 10_000_000_000L), random.nextInt(1_000_000_000)));
  }
}
