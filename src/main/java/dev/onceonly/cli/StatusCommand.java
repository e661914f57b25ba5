package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.maintenance.StoreStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongFunction;
import picocli.CommandLine.Command;

/** Renders {@link dev.onceonly.maintenance.Maintenance#status()}. */
@Command(
    name = "status",
    description = "Counts rows per table and state, the oldest pending intent's age, dead letters.")
final class StatusCommand extends OperatorCommand {
  @Override
  public Integer call() {
    StoreStatus s;
    try (OnceOnly once = target.open()) {
      s = once.maintenance().status();
    }
    Table counts = counts(s);
    Duration age = s.oldestPending().map(StoreStatus.PendingIntent::age).orElse(null);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("database", target.describe());
    doc.put("schemaVersion", s.schemaVersion());
    doc.put("counts", counts.objects());
    doc.put("pendingIntents", s.pendingIntents());
    doc.put("oldestPendingAgeSeconds", age == null ? null : age.toSeconds());
    doc.put("deadLetters", s.deadLetterTotal());
    if (json) {
      json(doc);
    } else {
      out().println("database " + target.describe() + ", schema version " + s.schemaVersion());
      counts.print(out());
      out().println("oldest pending intent: " + (age == null ? "none" : human(age) + " old"));
      out().println("dead letters: " + s.deadLetterTotal());
    }
    return 0;
  }

  private static Table counts(StoreStatus s) {
    Table counts = new Table("table", "state", "count");
    counts.add("intents", "registered", s.intents());
    counts.add("intents", "without receipt", s.pendingIntents());
    counts.add("receipts", "result kept", s.receiptsLive());
    counts.add("receipts", "result expired", s.receiptsExpired());
    counts.add("receipts", "tombstone", s.tombstones());
    queues(counts, s.messages(), ": due", StoreStatus.QueueCounts::due);
    queues(counts, s.messages(), ": leased or later", StoreStatus.QueueCounts::later);
    groups(counts, "dead_letters", s.deadLetters());
    groups(counts, "claims", s.claims());
    counts.add("rejections", "kept", s.rejections());
    return counts;
  }

  /** Adds one row per queue that has such messages, or one zero row when none has. */
  private static void queues(
      Table counts,
      Map<String, StoreStatus.QueueCounts> queues,
      String suffix,
      ToLongFunction<StoreStatus.QueueCounts> count) {
    boolean any = false;
    for (Map.Entry<String, StoreStatus.QueueCounts> e : queues.entrySet()) {
      long n = count.applyAsLong(e.getValue());
      if (n > 0) {
        counts.add("messages", e.getKey() + suffix, n);
        any = true;
      }
    }
    if (!any) {
      counts.add("messages", "any queue" + suffix, 0L);
    }
  }

  /** Adds one row per group, or one zero row when the table has none. */
  private static void groups(Table counts, String table, Map<String, Long> groups) {
    if (groups.isEmpty()) {
      counts.add(table, "none", 0L);
    }
    groups.forEach((name, n) -> counts.add(table, name, n));
  }
}
