package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.maintenance.Audit;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Renders {@link dev.onceonly.maintenance.Maintenance#audit}; exits 1 when it found anything. */
@Command(
    name = "verify",
    description =
        "Audits a live database: each effect has one receipt and each receipt its effect (with"
            + " --operation and --effects-query), no intent forgotten, no lease left to run out."
            + " Exit status 1 on findings.")
final class VerifyCommand extends OperatorCommand {
  @Option(
      names = "--operation",
      paramLabel = "NAME",
      description = "the operation whose receipts the effects belong to; with --effects-query")
  String operation;

  @Option(
      names = "--effects-query",
      paramLabel = "SQL",
      description =
          "SQL counting the application's effects per key: (key, count) or (scope, key, count),"
              + " e.g. \"SELECT order_id, COUNT(*) FROM charges GROUP BY order_id\"")
  String effectsQuery;

  @Option(
      names = "--pending-older-than",
      paramLabel = "AGE",
      converter = AgeConverter.class,
      defaultValue = "1h",
      description = "an intent without a receipt this old is forgotten (default: ${DEFAULT-VALUE})")
  Duration pendingBound;

  @Option(
      names = "--lease-grace",
      paramLabel = "AGE",
      converter = AgeConverter.class,
      defaultValue = "5m",
      description = "a lease run out this long ago is stale (default: ${DEFAULT-VALUE})")
  Duration leaseGrace;

  @Override
  public Integer call() {
    if ((operation == null) != (effectsQuery == null)) {
      throw new CliException(CliException.USAGE, "give both --operation and --effects-query");
    }
    Audit.Report report;
    try (OnceOnly once = target.open()) {
      try {
        report =
            once.maintenance()
                .audit(new Audit.Rules(operation, effectsQuery, pendingBound, leaseGrace));
      } catch (IllegalArgumentException e) {
        throw new CliException(CliException.USAGE, Target.firstLine(e.getMessage()));
      }
    }
    Table t = new Table("finding", "where", "key", "detail");
    for (Audit.Finding f : report.findings()) {
      t.add(f.kind().name(), f.where(), f.key(), f.detail());
    }
    if (json) {
      Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("database", target.describe());
      doc.put("clean", report.clean());
      doc.put("effectKeys", report.effectKeys());
      doc.put("receipts", report.receipts());
      Map<String, Long> counts = new LinkedHashMap<>();
      report.counts().forEach((k, v) -> counts.put(k.name(), v));
      doc.put("counts", counts);
      doc.put("findings", t.objects());
      json(doc);
    } else {
      out().println("database " + target.describe());
      if (effectsQuery != null) {
        out()
            .println(
                report.effectKeys()
                    + " key(s) with effects, "
                    + report.receipts()
                    + " receipt(s) of "
                    + operation);
      }
      report.counts().forEach((k, v) -> out().println(k.name() + ": " + v));
      if (!report.findings().isEmpty()) {
        t.print(out());
      }
      out().println(report.clean() ? "verify: OK" : "verify: " + report.total() + " finding(s)");
    }
    return report.clean() ? 0 : CliException.FAILED;
  }
}
