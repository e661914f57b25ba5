package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Schedule;
import dev.onceonly.queue.ScheduleSpec;
import dev.onceonly.queue.Schedules;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * Lists the recurring schedules with their next run through {@link Schedules#list}, and pauses,
 * resumes or deletes one.
 */
@Command(
    name = "schedules",
    description = "Lists, pauses, resumes or deletes recurring schedules.",
    subcommands = {
      SchedulesCommand.ListCommand.class,
      SchedulesCommand.Pause.class,
      SchedulesCommand.Resume.class,
      SchedulesCommand.Delete.class
    })
final class SchedulesCommand extends GroupCommand {

  @Command(name = "list", description = "Lists every schedule with its next run, by name.")
  static final class ListCommand extends OperatorCommand {
    @Override
    public Integer call() {
      List<Schedule> all;
      try (OnceOnly once = target.open()) {
        all = once.schedules().list();
      }
      Table t = new Table("name", "queue", "spec", "catchUp", "nextRun", "lastSlot", "paused");
      for (Schedule s : all) {
        t.add(
            s.name(),
            s.queue(),
            describe(s.spec()),
            s.spec() instanceof ScheduleSpec.FixedDelay ? "-" : s.spec().catchUp().text(),
            s.nextRun().map(Instant::toString).orElse(s.paused() ? "paused" : "after last run"),
            s.lastSlot().map(Instant::toString).orElse("never"),
            s.paused());
      }
      print(Map.of("schedules", t.objects()), t.size() + " schedule(s)", t);
      return 0;
    }
  }

  /** How a spec reads in a table: {@code cron 0 6 * * * Europe/Madrid}, {@code every PT1H}. */
  static String describe(ScheduleSpec spec) {
    if (spec instanceof ScheduleSpec.Cron c) {
      return "cron " + c.expression() + " " + c.zone().getId();
    }
    if (spec instanceof ScheduleSpec.FixedRate r) {
      return "every " + r.period();
    }
    return ((ScheduleSpec.FixedDelay) spec).delay() + " after each run";
  }

  /** The one-schedule commands: each changes the schedule named, or fails with NOT_FOUND. */
  abstract static class Change extends OperatorCommand {
    @Parameters(index = "0", paramLabel = "NAME", description = "the schedule's name")
    String name;

    private final String done;
    private final String refused;
    private final BiPredicate<Schedules, String> change;

    Change(String done, String refused, BiPredicate<Schedules, String> change) {
      this.done = done;
      this.refused = refused;
      this.change = change;
    }

    @Override
    public Integer call() {
      try (OnceOnly once = target.openToWrite()) {
        if (!change.test(once.schedules(), name)) {
          throw new CliException(
              CliException.NOT_FOUND, "no schedule " + name + refused + "; nothing changed");
        }
      }
      print(Map.of("name", name, done, true), null, new Table("name", done).add(name, true));
      return 0;
    }
  }

  @Command(name = "pause", description = "Pauses a schedule: no run until it is resumed.")
  static final class Pause extends Change {
    Pause() {
      super("paused", " that is running", Schedules::pause);
    }
  }

  @Command(
      name = "resume",
      description = "Resumes a paused schedule from its next slot (the paused ones are not run).")
  static final class Resume extends Change {
    Resume() {
      super("resumed", " that is paused", Schedules::resume);
    }
  }

  @Command(name = "delete", description = "Deletes a schedule; runs already queued stay.")
  static final class Delete extends Change {
    Delete() {
      super("deleted", "", Schedules::delete);
    }
  }
}
