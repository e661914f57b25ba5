package dev.onceonly.cli;

import dev.onceonly.Intent;
import dev.onceonly.OnceOnly;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Renders {@link dev.onceonly.IntentStore#pending(int)}. */
@Command(
    name = "pending",
    description = "Lists intents that have no receipt yet, oldest key order.")
final class PendingCommand extends OperatorCommand {
  @Mixin Limit limit;

  @Override
  public Integer call() {
    Instant now = Instant.now();
    try (OnceOnly once = target.open()) {
      List<Intent> pending = once.intents().pending(limit.value());
      Table t = new Table("scope", "key", "operation", "registered", "age");
      for (Intent i : pending) {
        t.add(
            i.key().scope(),
            i.key().key(),
            i.operation(),
            i.registeredAt(),
            human(Duration.between(i.registeredAt(), now)));
      }
      print(Map.of("pending", t.objects()), pending.size() + " pending intent(s)", t);
      return 0;
    }
  }
}
