package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.maintenance.Maintenance;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;

/**
 * Applies the pending migrations through {@link Maintenance#migrate}, one progress line per script
 * on stderr.
 */
@Command(
    name = "migrate",
    description = "Creates the schema, or brings it to this version (creates a new --db file).")
final class MigrateCommand extends OperatorCommand {
  @Override
  public Integer call() {
    Maintenance.Migration done;
    try (OnceOnly once = target.openForMigration()) {
      done =
          once.maintenance()
              .migrate(
                  version -> {
                    progress().println("migrate: applying schema version " + version);
                    progress().flush();
                  });
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("database", target.describe());
    doc.put("versionBefore", done.before());
    doc.put("versionAfter", done.after());
    if (json) {
      json(doc);
    } else {
      out().println(sentence(done));
    }
    return 0;
  }

  private String sentence(Maintenance.Migration done) {
    String where = target.describe();
    return done.changed()
        ? "migrated " + where + " from version " + done.before() + " to " + done.after()
        : "schema of " + where + " is up to date (version " + done.after() + ")";
  }
}
