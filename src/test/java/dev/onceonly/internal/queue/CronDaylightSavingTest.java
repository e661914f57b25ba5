package dev.onceonly.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.onceonly.queue.CatchUp;
import dev.onceonly.queue.Schedule;
import dev.onceonly.queue.ScheduleSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The slots of cron schedules around every daylight-saving change of 2026 and 2027 in every zone of
 * the JDK's time-zone data, against a reference that walks the minutes of the day and applies the
 * rule of {@code docs/queue.md} ("Daylight-saving changes") to its own reading of the fields: a job
 * whose hour field is written with {@code *} follows real time (every instant whose local time
 * matches); any other job runs each matching local time once, at its first occurrence, and the
 * local times a change skips once, at the instant of the change.
 */
class CronDaylightSavingTest {
  private static final Instant FROM = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant UNTIL = Instant.parse("2028-01-01T00:00:00Z");
  private static final Duration WINDOW = Duration.ofHours(16);

  /** Single values, lists, steps and ranges in the minute and hour fields. */
  private static final List<String> EXPRESSIONS =
      List.of(
          "30 2 * * *",
          "0,30 2 * * *",
          "*/30 1 * * *",
          "15 1-3 * * *",
          "0 * * * *",
          "*/20 * * * *",
          "45 0,1,2,3 * * *",
          "0 2,3 * * *",
          "*/15 0-3 * * *",
          "0 */2 * * *",
          "10-50/20 0 * * *",
          "0 0 * * *",
          "30 23,0,1 * * *",
          "*/10 2 * * *");

  /**
   * Every change of 2026 and 2027 in every zone. The slots depend on the zone only through its
   * offsets, so zones whose offsets agree over a change's window (the offset at its start and the
   * changes in it) are one case, computed once: the 828 changes of 2026-2027 are 144 cases.
   */
  @Test
  void everyZonesChangesIn2026And2027RunEachSlotOnceAsTheRuleSays() {
    Set<String> zones = new TreeSet<>();
    Map<List<Object>, String> cases = new LinkedHashMap<>();
    int changes = 0;
    for (String id : new TreeSet<>(ZoneId.getAvailableZoneIds())) {
      ZoneRules rules = ZoneId.of(id).getRules();
      for (ZoneOffsetTransition change = rules.nextTransition(FROM);
          change != null && change.getInstant().isBefore(UNTIL);
          change = rules.nextTransition(change.getInstant())) {
        zones.add(id);
        changes++;
        cases.putIfAbsent(window(rules, change.getInstant()), id);
      }
    }
    assertThat(zones).as("zones with changes in 2026-2027").hasSizeGreaterThan(100);
    assertThat(zones).contains("Europe/Berlin", "America/New_York", "Australia/Lord_Howe");
    assertThat(changes).isGreaterThan(200);

    long slots = 0;
    int differ = 0;
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<List<Object>, String> c : cases.entrySet()) {
      ZoneId zone = ZoneId.of(c.getValue());
      Instant start = (Instant) c.getKey().get(0);
      Instant end = start.plus(WINDOW).plus(WINDOW);
      Walk walk = new Walk(zone.getRules(), start, end);
      for (String expression : EXPRESSIONS) {
        List<Instant> want = walk.runs(new Fields(expression));
        List<Instant> forward = forward(expression, zone, start, end);
        List<Instant> backward = backward(expression, zone, start, end);
        slots += want.size();
        if (!forward.equals(want) || !backward.equals(want)) {
          differ++;
          if (wrong.size() < 5) {
            wrong.add(
                "%s %s \"%s\": want %s got %s backward %s"
                    .formatted(
                        zone,
                        c.getKey(),
                        expression,
                        local(want, zone),
                        local(forward, zone),
                        local(backward, zone)));
          }
        }
        for (Instant far : farFromChanges(forward, c.getKey())) {
          assertThat(zonedCronUtils(expression, zone, far))
              .as("a slot far from any change keeps its instant and run key")
              .isEqualTo(far);
        }
        Set<String> keys = new HashSet<>();
        forward.forEach(slot -> keys.add(Schedule.runKey("job", slot)));
        assertThat(keys).hasSameSizeAs(forward);
      }
    }
    assertThat(slots).isGreaterThan(10_000);
    assertThat(differ)
        .as(
            "(case, expression) pairs that differ of %d, the first: %s",
            cases.size() * EXPRESSIONS.size(), wrong)
        .isZero();
  }

  /** Six fields (seconds first, as in Spring) meet a change as their five-field form does. */
  @Test
  void sixFieldsMeetAChangeAsTheirFiveFieldForm() {
    for (String id : List.of("Europe/Berlin", "America/New_York", "Australia/Lord_Howe")) {
      ZoneId zone = ZoneId.of(id);
      for (ZoneOffsetTransition change = zone.getRules().nextTransition(FROM);
          change.getInstant().isBefore(UNTIL);
          change = zone.getRules().nextTransition(change.getInstant())) {
        Instant start = change.getInstant().minus(WINDOW);
        Instant end = change.getInstant().plus(WINDOW);
        for (String five : List.of("30 2 * * *", "*/30 1 * * *", "0 * * * *", "15 1-3 * * *")) {
          List<Instant> slots = forward(five, zone, start, end);
          assertThat(slots).isNotEmpty();
          assertThat(forward("0 " + five, zone, start, end)).as("%s %s", id, five).isEqualTo(slots);
          assertThat(backward("0 " + five, zone, start, end))
              .as("%s %s", id, five)
              .isEqualTo(slots);
        }
      }
    }
  }

  /** The first and last of {@code slots}, those more than three hours from every change. */
  private static List<Instant> farFromChanges(List<Instant> slots, List<Object> window) {
    List<Instant> ends =
        slots.isEmpty() ? List.of() : List.of(slots.get(0), slots.get(slots.size() - 1));
    return ends.stream()
        .filter(
            slot ->
                window.stream()
                    .skip(2)
                    .map(t -> ((ZoneOffsetTransition) t).getInstant())
                    .allMatch(t -> Duration.between(t, slot).abs().toHours() >= 3))
        .toList();
  }

  /**
   * The slot cron-utils' own zoned stepping gives at {@code slot}, as slots were before the rule.
   */
  private static Instant zonedCronUtils(String expression, ZoneId zone, Instant slot) {
    Cron cron =
        new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX))
            .parse(expression);
    return ExecutionTime.forCron(cron)
        .nextExecution(slot.minusSeconds(1).atZone(zone))
        .map(Instant::from)
        .orElseThrow();
  }

  /** The window around a change: its start, the offset then, and every change in it. */
  private static List<Object> window(ZoneRules rules, Instant change) {
    Instant start = change.minus(WINDOW);
    List<Object> key = new ArrayList<>(List.of(start, rules.getOffset(start)));
    for (ZoneOffsetTransition t = rules.nextTransition(start);
        t != null && t.getInstant().isBefore(change.plus(WINDOW));
        t = rules.nextTransition(t.getInstant())) {
      key.add(t);
    }
    return key;
  }

  /** The slots in [start, end), walking forward with the next slot after each. */
  private static List<Instant> forward(String expression, ZoneId zone, Instant start, Instant end) {
    ScheduleSpec spec = ScheduleSpec.cron(expression, zone);
    List<Instant> out = new ArrayList<>();
    Optional<Instant> slot = ScheduleSlots.after(spec, start, start.minusSeconds(1));
    while (slot.isPresent() && slot.get().isBefore(end)) {
      out.add(slot.get());
      slot = ScheduleSlots.after(spec, start, slot.get());
    }
    return out;
  }

  /** The same slots walking backward from {@code end}, through catch-up's newest-first listing. */
  private static List<Instant> backward(
      String expression, ZoneId zone, Instant start, Instant end) {
    ScheduleSpec spec = ScheduleSpec.cron(expression, zone).catchUp(CatchUp.all(10_000));
    Optional<Instant> first = ScheduleSlots.after(spec, start, start.minusSeconds(1));
    if (first.isEmpty() || !first.get().isBefore(end)) {
      return List.of();
    }
    return ScheduleSlots.toRun(spec, start, first.get(), end.minusSeconds(1));
  }

  private static List<String> local(List<Instant> slots, ZoneId zone) {
    return slots.stream().map(s -> s.atZone(zone).toOffsetDateTime().toString()).toList();
  }

  // ---- the reference ----

  private static List<Instant> berlin(String expression, String start, String end) {
    return new Walk(ZoneId.of("Europe/Berlin").getRules(), Instant.parse(start), Instant.parse(end))
        .runs(new Fields(expression));
  }

  /**
   * The instants of [start, end) minute by minute, each with its local time and whether that local
   * time is seen for the first time; computed once per change for all the expressions.
   */
  static final class Walk {
    final List<Instant> instants = new ArrayList<>();
    final List<LocalDateTime> locals = new ArrayList<>();
    final List<Boolean> firstTimes = new ArrayList<>();

    Walk(ZoneRules rules, Instant start, Instant end) {
      Set<LocalDateTime> seen = new HashSet<>();
      for (Instant t = start; t.isBefore(end); t = t.plusSeconds(60)) {
        LocalDateTime local = LocalDateTime.ofInstant(t, rules.getOffset(t));
        instants.add(t);
        locals.add(local);
        firstTimes.add(seen.add(local));
      }
    }

    /** The rule, applied to each minute's local time. */
    List<Instant> runs(Fields f) {
      TreeSet<Instant> runs = new TreeSet<>();
      for (int i = 0; i < instants.size(); i++) {
        Instant t = instants.get(i);
        LocalDateTime local = locals.get(i);
        if (f.matches(local) && (f.realTime || firstTimes.get(i))) {
          runs.add(t);
        }
        if (!f.realTime && i > 0) {
          // Local minutes skipped between the previous minute and this one: run once, now.
          for (LocalDateTime skipped = locals.get(i - 1).plusMinutes(1);
              skipped.isBefore(local);
              skipped = skipped.plusMinutes(1)) {
            if (f.matches(skipped)) {
              runs.add(t);
            }
          }
        }
      }
      return new ArrayList<>(runs);
    }
  }

  /**
   * The five crontab fields, each a comma list of {@code *}, {@code n}, {@code a-b}, each with an
   * optional {@code /step}; day of month, month and day of week must be {@code *} here.
   */
  static final class Fields {
    final BitSet minutes;
    final BitSet hours;
    final boolean realTime;

    Fields(String expression) {
      String[] parts = expression.split(" ");
      assertThat(parts).hasSize(5);
      assertThat(parts[2] + parts[3] + parts[4]).isEqualTo("***");
      minutes = field(parts[0], 59);
      hours = field(parts[1], 23);
      realTime = parts[1].startsWith("*");
    }

    boolean matches(LocalDateTime t) {
      return t.getSecond() == 0 && minutes.get(t.getMinute()) && hours.get(t.getHour());
    }

    private static BitSet field(String text, int max) {
      BitSet set = new BitSet();
      for (String item : text.split(",")) {
        String[] stepped = item.split("/");
        int step = stepped.length == 2 ? Integer.parseInt(stepped[1]) : 1;
        int from;
        int to;
        if (stepped[0].equals("*")) {
          from = 0;
          to = max;
        } else if (stepped[0].contains("-")) {
          from = Integer.parseInt(stepped[0].split("-")[0]);
          to = Integer.parseInt(stepped[0].split("-")[1]);
        } else {
          from = Integer.parseInt(stepped[0]);
          to = stepped.length == 2 ? max : from;
        }
        for (int v = from; v <= to; v += step) {
          set.set(v);
        }
      }
      return set;
    }
  }

  @Test
  void theReferenceReadsTheFieldsAsCrontabDoes() {
    assertThat(new Fields("*/20 * * * *").minutes.toString()).isEqualTo("{0, 20, 40}");
    assertThat(new Fields("10-50/20 0 * * *").minutes.toString()).isEqualTo("{10, 30, 50}");
    assertThat(new Fields("45 0,1,2,3 * * *").hours.toString()).isEqualTo("{0, 1, 2, 3}");
    assertThat(new Fields("15 1-3 * * *").hours.toString()).isEqualTo("{1, 2, 3}");
    assertThat(new Fields("0 */2 * * *").realTime).isTrue();
    assertThat(new Fields("0 2,3 * * *").realTime).isFalse();
    // Berlin, spring: 02:30 does not exist and runs at the change (03:00 local, 01:00Z); autumn:
    // the first 02:30 (00:30Z) only.
    assertThat(berlin("30 2 * * *", "2026-03-28T12:00:00Z", "2026-03-29T12:00:00Z"))
        .containsExactly(Instant.parse("2026-03-29T01:00:00Z"));
    assertThat(berlin("30 2 * * *", "2026-10-24T12:00:00Z", "2026-10-25T12:00:00Z"))
        .containsExactly(Instant.parse("2026-10-25T00:30:00Z"));
    assertThat(berlin("0 * * * *", "2026-10-24T23:30:00Z", "2026-10-25T02:30:00Z"))
        .containsExactly(
            Instant.parse("2026-10-25T00:00:00Z"),
            Instant.parse("2026-10-25T01:00:00Z"),
            Instant.parse("2026-10-25T02:00:00Z"));
  }
}
