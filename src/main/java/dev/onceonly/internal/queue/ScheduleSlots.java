package dev.onceonly.internal.queue;

import dev.onceonly.queue.CatchUp;
import dev.onceonly.queue.ScheduleSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The slot arithmetic of schedules, and their stored text: {@code cron|<zone>|<expression>}, {@code
 * rate|<ISO-8601>} or {@code delay|<ISO-8601>}, with the catch-up policy as {@link CatchUp#text()}.
 */
final class ScheduleSlots {
  private ScheduleSlots() {}

  static String text(ScheduleSpec spec) {
    if (spec instanceof ScheduleSpec.Cron c) {
      return "cron|" + c.zone().getId() + "|" + c.expression();
    }
    if (spec instanceof ScheduleSpec.FixedRate r) {
      return "rate|" + r.period();
    }
    return "delay|" + ((ScheduleSpec.FixedDelay) spec).delay();
  }

  static ScheduleSpec parse(String text, String catchUp) {
    String[] parts = text.split("\\|", 3);
    ScheduleSpec spec =
        switch (parts[0]) {
          case "cron" -> ScheduleSpec.cron(parts[2], ZoneId.of(parts[1]));
          case "rate" -> ScheduleSpec.fixedRate(Duration.parse(parts[1]));
          case "delay" -> ScheduleSpec.fixedDelay(Duration.parse(parts[1]));
          default -> throw new IllegalStateException("unknown schedule spec " + text);
        };
    return spec instanceof ScheduleSpec.FixedDelay ? spec : spec.catchUp(catchUp(catchUp));
  }

  static CatchUp catchUp(String text) {
    if (text.startsWith("all:")) {
      return CatchUp.all(Integer.parseInt(text.substring(4)));
    }
    if (text.startsWith("skip:")) {
      return CatchUp.skip(Duration.parse(text.substring(5)));
    }
    return CatchUp.once();
  }

  /** Checks what registration cannot leave to the record constructors (the cron fields). */
  static void check(ScheduleSpec spec) {
    if (spec instanceof ScheduleSpec.Cron c) {
      CronSlots.check(c.expression());
    }
  }

  /**
   * The first slot strictly after {@code after} (a fixed rate's slots counted from {@code anchor});
   * empty for a fixed delay, whose next run waits for the previous one, and for a cron expression
   * with no slot left.
   */
  static Optional<Instant> after(ScheduleSpec spec, Instant anchor, Instant after) {
    if (spec instanceof ScheduleSpec.Cron c) {
      return CronSlots.after(c.expression(), c.zone(), after);
    }
    if (spec instanceof ScheduleSpec.FixedRate r) {
      return Optional.of(rateSlot(anchor, r.period(), after, 1));
    }
    return Optional.empty();
  }

  /**
   * The slots to run now for a schedule whose next slot {@code due} is at or before {@code now},
   * oldest first, as its catch-up policy says: empty when {@link CatchUp#skip} finds them all too
   * late.
   */
  static List<Instant> toRun(ScheduleSpec spec, Instant anchor, Instant due, Instant now) {
    if (spec instanceof ScheduleSpec.FixedDelay) {
      return List.of(due);
    }
    Instant newest = newestAtOrBefore(spec, anchor, now).filter(s -> !s.isBefore(due)).orElse(due);
    CatchUp policy = spec.catchUp();
    if (policy instanceof CatchUp.All a) {
      return newestSlots(spec, anchor, due, newest, a.max());
    }
    if (policy instanceof CatchUp.Skip s
        && Duration.between(newest, now).compareTo(s.tolerance()) > 0) {
      return List.of();
    }
    return List.of(newest);
  }

  private static List<Instant> newestSlots(
      ScheduleSpec spec, Instant anchor, Instant due, Instant newest, int max) {
    List<Instant> out = new ArrayList<>();
    Optional<Instant> slot = Optional.of(newest);
    while (slot.isPresent() && !slot.get().isBefore(due) && out.size() < max) {
      out.add(slot.get());
      slot = before(spec, anchor, slot.get());
    }
    Collections.reverse(out);
    return out;
  }

  private static Optional<Instant> newestAtOrBefore(ScheduleSpec spec, Instant anchor, Instant t) {
    return before(spec, anchor, t.plusMillis(1));
  }

  /** The newest slot strictly before {@code before}. */
  private static Optional<Instant> before(ScheduleSpec spec, Instant anchor, Instant before) {
    if (spec instanceof ScheduleSpec.Cron c) {
      return CronSlots.before(c.expression(), c.zone(), before);
    }
    if (spec instanceof ScheduleSpec.FixedRate r && before.isAfter(anchor)) {
      return Optional.of(rateSlot(anchor, r.period(), before.minusMillis(1), 0));
    }
    return Optional.empty();
  }

  /** The slot {@code anchor + (n + plus) × period}, {@code n} the slots at or before {@code t}. */
  private static Instant rateSlot(Instant anchor, Duration period, Instant t, int plus) {
    long p = period.toMillis();
    long since = t.toEpochMilli() - anchor.toEpochMilli();
    long n = since < 0 ? -1 : since / p;
    return anchor.plusMillis((n + plus) * p);
  }
}
