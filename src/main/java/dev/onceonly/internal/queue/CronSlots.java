package dev.onceonly.internal.queue;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.onceonly.InvalidRequestException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The slots of a cron expression, through cron-utils: five fields read as crontab does, six
 * (seconds first) as Spring does. The only class that names cron-utils, an optional dependency, so
 * that a store without cron schedules runs without it.
 */
final class CronSlots {
  private static final ConcurrentMap<String, ExecutionTime> PARSED = new ConcurrentHashMap<>();
  private static final int MAX_PARSED = 1_000;

  private CronSlots() {}

  /** Parses and checks {@code expression}, or explains why it is not one. */
  static void check(String expression) {
    try {
      times(expression);
    } catch (NoClassDefFoundError e) {
      throw new IllegalStateException(
          "cron schedules need com.cronutils:cron-utils on the class path", e);
    }
  }

  /** {@return the first slot strictly after {@code after}}, if the expression has one */
  static Optional<Instant> after(String expression, ZoneId zone, Instant after) {
    return times(expression).nextExecution(ZonedDateTime.ofInstant(after, zone)).map(Instant::from);
  }

  /** {@return the newest slot strictly before {@code before}}, if any */
  static Optional<Instant> before(String expression, ZoneId zone, Instant before) {
    return times(expression)
        .lastExecution(ZonedDateTime.ofInstant(before, zone))
        .map(Instant::from);
  }

  private static ExecutionTime times(String expression) {
    ExecutionTime known = PARSED.get(expression);
    if (known != null) {
      return known;
    }
    int fields = expression.split(" ").length;
    CronType type =
        switch (fields) {
          case 5 -> CronType.UNIX;
          case 6 -> CronType.SPRING53;
          default ->
              throw new InvalidRequestException(
                  "spec", "a cron expression has 5 fields (or 6 with seconds), not " + fields);
        };
    Cron cron;
    try {
      cron = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(type)).parse(expression);
      cron.validate();
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException("spec", "invalid cron expression: " + e.getMessage());
    }
    ExecutionTime parsed = ExecutionTime.forCron(cron);
    if (PARSED.size() < MAX_PARSED) {
      PARSED.put(expression, parsed);
    }
    return parsed;
  }
}
