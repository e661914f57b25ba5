package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.maintenance.QueuePage;
import dev.onceonly.queue.QueuePause;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Lists the queues with their counts and pauses ({@link
 * dev.onceonly.maintenance.Maintenance#queues} and {@link
 * dev.onceonly.queue.JobQueue#pausedQueues}, read only), and pauses or resumes one queue for every
 * instance ({@link dev.onceonly.queue.JobQueue#pause}, {@code resume}).
 */
@Command(
    name = "queues",
    description = "Lists the queues and their pauses, or pauses or resumes one.",
    subcommands = {
      QueuesCommand.ListCommand.class,
      QueuesCommand.Pause.class,
      QueuesCommand.Resume.class
    })
final class QueuesCommand extends GroupCommand {

  @Command(
      name = "list",
      description =
          "Lists the queues, the deepest first, with their counts and whether each is paused"
              + " (a paused queue with no message too).")
  static final class ListCommand extends OperatorCommand {
    @Mixin Limit limit;

    @Override
    public Integer call() {
      QueuePage page;
      List<QueuePause> pauses;
      try (OnceOnly once = target.open()) {
        page = once.maintenance().queues("", 0, limit.value());
        pauses = once.queue().pausedQueues();
      }
      Map<String, QueuePause> paused = new TreeMap<>();
      pauses.forEach(p -> paused.put(p.queue(), p));
      Table t =
          new Table(
              "queue",
              "due",
              "leased",
              "delayed",
              "deadLetters",
              "paused",
              "pausedBy",
              "pausedAt",
              "reason");
      for (QueuePage.Queue q : page.queues()) {
        QueuePause p = paused.remove(q.name());
        row(
            t,
            q.name(),
            q.counts().due(),
            q.counts().leased(),
            q.counts().delayed(),
            q.deadLetters(),
            p);
      }
      for (QueuePause p : paused.values()) {
        row(t, p.queue(), 0, 0, 0, 0, p); // paused, with no message waiting
      }
      print(Map.of("queues", t.objects()), t.size() + " queue(s), " + pauses.size() + " paused", t);
      return 0;
    }

    private static void row(
        Table t, String name, long due, long leased, long delayed, long dead, QueuePause p) {
      t.add(
          name,
          due,
          leased,
          delayed,
          dead,
          p != null,
          p == null ? "" : p.pausedBy(),
          p == null ? "" : p.pausedAt(),
          p == null || p.reason() == null ? "" : p.reason());
    }
  }

  @Command(
      name = "pause",
      description =
          "Pauses a queue for every instance: no claim leases its messages until it is resumed;"
              + " the messages leased already are settled as usual.")
  static final class Pause extends OperatorCommand {
    @Parameters(index = "0", paramLabel = "NAME", description = "the queue's name")
    String name;

    @Option(
        names = "--by",
        paramLabel = "WHO",
        description = "who pauses it, shown with the pause (default: the user.name of this JVM)")
    String by;

    @Option(names = "--reason", paramLabel = "TEXT", description = "why, shown with the pause")
    String reason;

    @Override
    public Integer call() {
      String who = by != null ? by : System.getProperty("user.name", "cli");
      boolean paused;
      QueuePause pause;
      try (OnceOnly once = target.openToWrite()) {
        paused = once.queue().pause(name, who, reason);
        pause = once.queue().paused(name).orElseThrow();
      }
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("queue", name);
      doc.put("paused", paused);
      doc.put("pausedBy", pause.pausedBy());
      doc.put("pausedAt", pause.pausedAt().toString());
      doc.put("reason", pause.reason() == null ? "" : pause.reason());
      print(
          doc,
          paused ? null : "already paused; the first pause is kept",
          new Table("queue", "paused", "pausedBy", "pausedAt", "reason")
              .add(name, paused, pause.pausedBy(), pause.pausedAt(), doc.get("reason")));
      return 0;
    }
  }

  @Command(name = "resume", description = "Resumes a paused queue for every instance.")
  static final class Resume extends OperatorCommand {
    @Parameters(index = "0", paramLabel = "NAME", description = "the queue's name")
    String name;

    @Override
    public Integer call() {
      try (OnceOnly once = target.openToWrite()) {
        if (!once.queue().resume(name)) {
          throw new CliException(
              CliException.NOT_FOUND, "no queue " + name + " that is paused; nothing changed");
        }
      }
      print(
          Map.of("queue", name, "resumed", true),
          null,
          new Table("queue", "resumed").add(name, true));
      return 0;
    }
  }
}
