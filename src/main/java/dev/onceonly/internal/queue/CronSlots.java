package dev.onceonly.internal.queue;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.onceonly.InvalidRequestException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * The slots of a cron expression, through cron-utils: five fields read as crontab does, six
 * (seconds first) as Spring does. The only class that names cron-utils, an optional dependency, so
 * that a store without cron schedules runs without it.
 */
final class CronSlots {
  private static final ConcurrentMap<String, Fields> PARSED = new ConcurrentHashMap<>();
  private static final int MAX_PARSED = 1_000;

  private CronSlots() {}

  /** Parses and checks {@code expression}, or explains why it is not one. */
  static void check(String expression) {
    try {
      fields(expression);
    } catch (NoClassDefFoundError e) {
      throw new IllegalStateException(
          "cron schedules need com.cronutils:cron-utils on the class path", e);
    }
  }

  /**
   * {@return the first slot strictly after {@code after}}, if the expression has one, under the
   * rule for daylight-saving changes (see {@link Fields})
   */
  static Optional<Instant> after(String expression, ZoneId zone, Instant after) {
    Fields fields = fields(expression);
    ZoneRules rules = zone.getRules();
    Instant from = after;
    Optional<LocalDateTime> next =
        fields.after(LocalDateTime.ofInstant(after, rules.getOffset(after)));
    while (next.isPresent()) {
      ZoneOffset offset = rules.getOffset(from);
      ZoneOffsetTransition change = rules.nextTransition(from);
      // The local times of the stretch [from, change) with one offset, in order.
      while (next.isPresent()) {
        LocalDateTime local = next.get();
        Instant at = local.toInstant(offset);
        if (change != null && !at.isBefore(change.getInstant())) {
          break;
        }
        ZoneOffsetTransition back = rules.getTransition(local);
        if (!fields.realTime() && repeats(back, offset)) {
          next = fields.atOrAfter(back.getDateTimeBefore());
          continue;
        }
        return Optional.of(at);
      }
      if (next.isEmpty()) {
        return Optional.empty();
      }
      if (!fields.realTime() && change.isGap() && next.get().isBefore(change.getDateTimeAfter())) {
        return Optional.of(change.getInstant());
      }
      from = change.getInstant();
      next = fields.atOrAfter(change.getDateTimeAfter());
    }
    return Optional.empty();
  }

  /**
   * {@return the newest slot strictly before {@code before}}, if any, under the same rule as {@link
   * #after}
   */
  static Optional<Instant> before(String expression, ZoneId zone, Instant before) {
    Fields fields = fields(expression);
    ZoneRules rules = zone.getRules();
    Instant to = before;
    while (true) {
      ZoneOffset offset = rules.getOffset(to.minusNanos(1));
      ZoneOffsetTransition change = rules.previousTransition(to);
      Optional<LocalDateTime> previous = fields.before(LocalDateTime.ofInstant(to, offset));
      // The local times of the stretch [change, to) with one offset, newest first.
      if (previous.isPresent()) {
        LocalDateTime local = previous.get();
        Instant at = local.toInstant(offset);
        boolean inStretch = change == null || !at.isBefore(change.getInstant());
        // A repeated local time in the later stretch: so are all before it in that stretch.
        if (inStretch && (fields.realTime() || !repeats(rules.getTransition(local), offset))) {
          return Optional.of(at);
        }
      }
      if (previous.isEmpty() || change == null) {
        return Optional.empty();
      }
      if (!fields.realTime()
          && change.isGap()
          && fields
              .before(change.getDateTimeAfter())
              .filter(l -> !l.isBefore(change.getDateTimeBefore()))
              .isPresent()) {
        return Optional.of(change.getInstant());
      }
      to = change.getInstant();
    }
  }

  /**
   * Whether a local time in {@code change} (null for one in no change), read with {@code offset},
   * is the second pass of a repeated time.
   */
  private static boolean repeats(ZoneOffsetTransition change, ZoneOffset offset) {
    return change != null && change.isOverlap() && offset.equals(change.getOffsetAfter());
  }

  private static Fields fields(String expression) {
    Fields known = PARSED.get(expression);
    if (known != null) {
      return known;
    }
    String[] fields = expression.split(" ");
    CronType type =
        switch (fields.length) {
          case 5 -> CronType.UNIX;
          case 6 -> CronType.SPRING53;
          default ->
              throw new InvalidRequestException(
                  "spec",
                  "a cron expression has 5 fields (or 6 with seconds), not " + fields.length);
        };
    Cron cron;
    try {
      cron = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(type)).parse(expression);
      cron.validate();
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException("spec", "invalid cron expression: " + e.getMessage());
    }
    ExecutionTime times = ExecutionTime.forCron(cron);
    String hours = fields[fields.length - 4];
    Fields parsed = new Fields(times::nextExecution, times::lastExecution, hours.startsWith("*"));
    if (PARSED.size() < MAX_PARSED) {
      PARSED.put(expression, parsed);
    }
    return parsed;
  }

  /**
   * The local times an expression matches, and how it meets a daylight-saving change, as Vixie cron
   * does. A job whose hour field is written with {@code *} ({@code *} or {@code *}{@code /n})
   * follows real time: it runs at every instant whose local time matches, so an hourly job runs in
   * both passes of a repeated hour and at none of the times a change skips. Any other job runs at
   * fixed times: each matching local time once, at its first pass, and the matching local times
   * that a change skips once, at the instant of the change (with the first local time after it, if
   * that one matches too).
   *
   * <p>cron-utils steps through local times in UTC, where no time is skipped or repeated; this
   * class maps them to instants, as cron-utils' own zoned stepping does not follow this rule.
   *
   * <p>The steps are functions rather than cron-utils' {@code ExecutionTime}, so that this class
   * alone names cron-utils.
   *
   * @param next the first matching time strictly after a time in UTC
   * @param last the newest matching time strictly before a time in UTC
   * @param realTime whether the hour field is written with {@code *}
   */
  private record Fields(
      Function<ZonedDateTime, Optional<ZonedDateTime>> next,
      Function<ZonedDateTime, Optional<ZonedDateTime>> last,
      boolean realTime) {
    Optional<LocalDateTime> after(LocalDateTime t) {
      return next.apply(t.atZone(ZoneOffset.UTC)).map(ZonedDateTime::toLocalDateTime);
    }

    /** For {@code t} in whole seconds, as the local times of changes are. */
    Optional<LocalDateTime> atOrAfter(LocalDateTime t) {
      return after(t.minusSeconds(1));
    }

    Optional<LocalDateTime> before(LocalDateTime t) {
      return last.apply(t.atZone(ZoneOffset.UTC)).map(ZonedDateTime::toLocalDateTime);
    }
  }
}
