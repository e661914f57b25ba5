package dev.onceonly.cli;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Receipt;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Looks up receipts through {@link dev.onceonly.ReceiptStore#find}. */
@Command(
    name = "receipts",
    description = "Looks up receipts.",
    subcommands = ReceiptsCommand.Show.class)
final class ReceiptsCommand extends GroupCommand {

  @Command(name = "show", description = "Shows the receipt of one intent.")
  static final class Show extends OperatorCommand {
    @Mixin KeyArgs intent;

    @Override
    public Integer call() {
      try (OnceOnly once = target.open()) {
        IntentKey k = intent.key();
        Receipt r =
            once.receipts()
                .find(k)
                .orElseThrow(() -> new CliException(CliException.NOT_FOUND, "no receipt for " + k));
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("scope", k.scope());
        doc.put("key", k.key());
        doc.put("operation", r.operation());
        doc.put("fingerprint", r.fingerprint().toString());
        doc.put("state", r.resultJson() == null ? "tombstone" : "result kept");
        doc.put("result", r.resultJson() == null ? null : tree(r.resultJson()));
        doc.put("createdAt", r.createdAt().toString());
        doc.put("expiresAt", r.expiresAt().toString());
        doc.put("forgetAt", r.forgetAt().toString());
        printFields(doc);
        return 0;
      }
    }
  }
}
