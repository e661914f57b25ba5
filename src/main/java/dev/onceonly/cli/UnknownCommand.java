package dev.onceonly.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.external.ClaimRecord;
import dev.onceonly.external.ClaimState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Lists and settles unknown external effects through {@link dev.onceonly.external}. */
@Command(
    name = "unknown",
    description = "Lists or resolves external effects whose outcome is unknown.",
    subcommands = {UnknownCommand.ListCommand.class, UnknownCommand.Resolve.class})
final class UnknownCommand extends GroupCommand {

  @Command(
      name = "list",
      description =
          "Lists intents waiting for reconciliation (an expired lease becomes unknown first).")
  static final class ListCommand extends OperatorCommand {
    @Mixin Limit limit;

    @Override
    public Integer call() {
      try (OnceOnly once = target.openToWrite()) {
        List<ClaimRecord> unknown = once.externalEffects().unknown(limit.value());
        Table t =
            new Table(
                "scope",
                "key",
                "operation",
                "state",
                "attempts",
                "downstreamKey",
                "maybeApplied",
                "lastError");
        for (ClaimRecord r : unknown) {
          t.add(
              r.key().scope(),
              r.key().key(),
              r.operation(),
              r.state(),
              r.attempts(),
              r.downstreamKey(),
              r.maybeApplied(),
              oneLine(r.lastError()));
        }
        print(Map.of("unknown", t.objects()), unknown.size() + " unknown effect(s)", t);
        return 0;
      }
    }
  }

  @Command(
      name = "resolve",
      description =
          "Settles an unknown effect after checking the provider: --done (with its result) or"
              + " --not-done (a new attempt may run, with the same downstream key).")
  static final class Resolve extends OperatorCommand {
    @Mixin KeyArgs intent;

    @Option(names = "--done", description = "the effect happened at the provider")
    boolean done;

    @Option(names = "--not-done", description = "the effect did not happen at the provider")
    boolean notDone;

    @Option(
        names = "--result",
        paramLabel = "JSON",
        description = "with --done: the result found at the provider")
    String result;

    @Override
    public Integer call() {
      if (done == notDone) {
        throw new CliException(CliException.USAGE, "give exactly one of --done or --not-done");
      }
      if (notDone && result != null) {
        throw new CliException(CliException.USAGE, "--result goes with --done only");
      }
      JsonNode value = result == null ? null : tree(result);
      IntentKey k = intent.key();
      try (OnceOnly once = target.openToWrite()) {
        Optional<ClaimState> state =
            done
                ? once.externalEffects().resolveDone(k, value)
                : once.externalEffects().resolveNotDone(k);
        if (state.isEmpty()) {
          throw new CliException(
              CliException.NOT_FOUND, "no unknown external effect for " + k + "; nothing changed");
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("scope", k.scope());
        doc.put("key", k.key());
        doc.put("state", state.get().name());
        print(doc, null, new Table("scope", "key", "state").add(k.scope(), k.key(), state.get()));
        return 0;
      }
    }
  }
}
