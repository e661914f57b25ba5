package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.maintenance.Maintenance;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongConsumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Applies retention through {@link Maintenance}'s purges, in batches of 1,000; on a store that
 * needs more than one batch, a progress line per batch goes to stderr.
 */
@Command(
    name = "purge",
    description =
        "Applies retention: expired results become tombstones and old tombstones go (as the"
            + " store's retention says), and rejections, dead letters and finished workflow runs"
            + " older than --older-than are deleted.")
final class PurgeCommand extends OperatorCommand {
  /** Rows per transaction: short enough not to hold writers up, large enough to be quick. */
  static final int BATCH = 1_000;

  @Option(
      names = "--older-than",
      required = true,
      paramLabel = "AGE",
      converter = AgeConverter.class,
      description = "e.g. 30d, 12h, 90m or an ISO-8601 duration such as P30D")
  Duration olderThan;

  @Override
  public Integer call() {
    Map<String, Object> doc = new LinkedHashMap<>();
    try (OnceOnly once = target.openToWrite()) {
      Maintenance m = once.maintenance();
      Maintenance.ReceiptPurge receipts = m.purgeReceipts(BATCH, progress("receipts"));
      long rejections = m.purgeRejections(olderThan, BATCH, progress("rejections"));
      long deadLetters = m.purgeDeadLetters(olderThan, BATCH, progress("dead letters"));
      long workflows = m.purgeWorkflows(olderThan, BATCH, progress("workflows"));
      doc.put("olderThan", olderThan.toString());
      doc.put("receiptsTombstoned", receipts.tombstoned());
      doc.put("receiptsDeleted", receipts.deleted());
      doc.put("rejectionsDeleted", rejections);
      doc.put("deadLettersDeleted", deadLetters);
      doc.put("workflowsDeleted", workflows);
    }
    printFields(doc);
    return 0;
  }

  /** Prints the running total once the work takes more than one batch. */
  private LongConsumer progress(String what) {
    return total -> {
      if (total >= BATCH) {
        progress().println("purge: " + what + ": " + total + " so far");
        progress().flush();
      }
    };
  }
}
