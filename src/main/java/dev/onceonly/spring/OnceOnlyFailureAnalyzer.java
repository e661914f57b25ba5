package dev.onceonly.spring;

import dev.onceonly.DurabilityException;
import dev.onceonly.SchemaVersionException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Spring Boot's failure analysis of a start that OnceOnly refused: finds an {@link
 * OnceOnlyConfigurationException}, a {@link DurabilityException} or a {@link
 * SchemaVersionException} anywhere in the cause chain (a refusal while the servlet container starts
 * lies several causes below "Unable to start embedded Tomcat") and reports its reason and what to
 * do. Registered in META-INF/spring.factories.
 */
final class OnceOnlyFailureAnalyzer implements FailureAnalyzer {
  OnceOnlyFailureAnalyzer() {}

  @Override
  public FailureAnalysis analyze(Throwable failure) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
      if (t instanceof OnceOnlyConfigurationException e) {
        return new FailureAnalysis(
            "OnceOnly refused to start: " + e.problem(), sentence(e.action()), e);
      }
      if (t instanceof DurabilityException e) {
        return new FailureAnalysis(
            "OnceOnly refused to start: " + e.getMessage(),
            "Give the database a synchronous standby (PostgreSQL: synchronous_standby_names, or"
                + " Patroni's synchronous_mode) so that a failover keeps every answered receipt,"
                + " or set onceonly.require-synchronous-replication=false to accept that loss.",
            e);
      }
      if (t instanceof SchemaVersionException e) {
        return new FailureAnalysis(
            "OnceOnly's schema is not the version it needs: " + e.getMessage(), action(e), e);
      }
    }
    return null;
  }

  /** {@code action} as a sentence: capitalized, with a full stop. */
  private static String sentence(String action) {
    return Character.toUpperCase(action.charAt(0)) + action.substring(1) + ".";
  }

  private static String action(SchemaVersionException e) {
    if (e.found() > e.required()) {
      return "Run a version of OnceOnly that knows schema version "
          + e.found()
          + ", or point onceonly.table-prefix at another set of tables.";
    }
    return "Apply OnceOnly's migration scripts up to version "
        + e.required()
        + " (dev/onceonly/sql/<dialect>/V*.sql in the jar) with your migration tool before the"
        + " application starts, or set onceonly.migrations=apply to let OnceOnly apply them.";
  }
}
