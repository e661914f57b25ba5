package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.maintenance.Maintenance.DeadLetterSummary;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Lists dead letters through {@link dev.onceonly.maintenance.Maintenance#recentDeadLetters} and
 * requeues one through {@link dev.onceonly.queue.JobQueue#requeue}.
 */
@Command(
    name = "dead-letters",
    description = "Lists or requeues dead letters.",
    subcommands = {DeadLettersCommand.ListCommand.class, DeadLettersCommand.Requeue.class})
final class DeadLettersCommand extends GroupCommand {

  @Command(name = "list", description = "Lists dead letters, newest first.")
  static final class ListCommand extends OperatorCommand {
    @Option(names = "--queue", paramLabel = "QUEUE", description = "only this queue")
    String queue;

    @Mixin Limit limit;

    @Override
    public Integer call() {
      List<DeadLetterSummary> dead;
      try (OnceOnly once = target.open()) {
        dead = once.maintenance().recentDeadLetters(queue, limit.value());
      }
      Table t = new Table("queue", "key", "attempts", "deadAt", "lastError");
      for (DeadLetterSummary d : dead) {
        t.add(d.queue(), d.key(), d.attempts(), d.deadAt(), oneLine(d.lastError()));
      }
      print(Map.of("deadLetters", t.objects()), t.size() + " dead letter(s)", t);
      return 0;
    }
  }

  @Command(name = "requeue", description = "Puts a dead letter back on its queue, due now.")
  static final class Requeue extends OperatorCommand {
    @Parameters(index = "0", paramLabel = "QUEUE", description = "the queue")
    String queue;

    @Parameters(index = "1", paramLabel = "KEY", description = "the message's key")
    String key;

    @Override
    public Integer call() {
      try (OnceOnly once = target.openToWrite()) {
        if (!once.queue().requeue(queue, key)) {
          throw new CliException(
              CliException.NOT_FOUND,
              "no dead letter "
                  + key
                  + " in queue "
                  + queue
                  + " (or its key is in use in the queue again); nothing changed");
        }
        Map<String, Object> doc = Map.of("queue", queue, "key", key, "requeued", true);
        Table t = new Table("queue", "key", "requeued").add(queue, key, true);
        print(doc, null, t);
        return 0;
      }
    }
  }
}
