package dev.onceonly.spring;

import dev.onceonly.Durability;
import dev.onceonly.maintenance.Backlog;
import dev.onceonly.maintenance.Maintenance;
import dev.onceonly.maintenance.StoreStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the health indicator reports, read through the maintenance API and judged against {@link
 * OnceOnlyProperties.Health}, with no Spring Boot type in it: Actuator's types moved between Boot 3
 * and Boot 4, and each line's indicator ({@code OnceOnlyHealthIndicator}, {@code
 * OnceOnlyBoot4HealthIndicator}) only turns this into its {@code Health}. What the server may lose
 * (see {@link Maintenance#durability()}) is shown under {@code mayBeLost}. Down is only for what an
 * operator must act on: a schema that is not this library's version, and a threshold exceeded.
 *
 * @param down whether an operator must act
 * @param details the figures and, under {@code problems}, what exceeded its bound
 */
record OnceOnlyHealth(boolean down, Map<String, Object> details) {
  static final String UNKNOWN = "UNKNOWN";

  static OnceOnlyHealth of(Maintenance maintenance, OnceOnlyProperties.Health bounds) {
    Maintenance.SchemaVersion schema = maintenance.schemaVersion();
    Map<String, Object> details = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    details.put("schemaVersion", schema.found());
    details.put("schemaVersionRequired", schema.required());
    if (!schema.isCurrent()) {
      problems.add(
          "schema version " + schema.found() + " is not the required " + schema.required());
      details.put("problems", problems);
      return new OnceOnlyHealth(true, details);
    }
    Backlog status = maintenance.backlog();
    details.put("pendingIntents", status.pendingIntents());
    Duration oldest = status.oldestPending().map(StoreStatus.PendingIntent::age).orElse(null);
    details.put("oldestPendingIntentAge", oldest == null ? null : oldest.toString());
    long unknown = status.claims().getOrDefault(UNKNOWN, 0L);
    details.put("unknownOutcomes", unknown);
    details.put("deadLetters", status.deadLetterTotal());
    Durability durability = maintenance.durability();
    details.put("crashSafe", durability.crashSafe());
    details.put("failoverSafe", durability.failoverSafe());
    details.put("synchronousStandbys", durability.synchronousStandbys());
    details.put("durabilitySettings", durability.settings());
    if (!durability.risks().isEmpty()) {
      details.put("mayBeLost", durability.risks()); // a risk to know of, not an outage: still up
    }
    if (bounds.maxPendingIntentAge() != null
        && oldest != null
        && oldest.compareTo(bounds.maxPendingIntentAge()) > 0) {
      problems.add(
          "the oldest pending intent is "
              + oldest
              + " old, more than onceonly.health.max-pending-intent-age "
              + bounds.maxPendingIntentAge());
    }
    if (bounds.maxUnknownOutcomes() != null && unknown > bounds.maxUnknownOutcomes()) {
      problems.add(
          unknown
              + " external outcomes are unknown, more than onceonly.health.max-unknown-outcomes "
              + bounds.maxUnknownOutcomes());
    }
    if (bounds.maxDeadLetters() != null && status.deadLetterTotal() > bounds.maxDeadLetters()) {
      problems.add(
          status.deadLetterTotal()
              + " dead letters, more than onceonly.health.max-dead-letters "
              + bounds.maxDeadLetters());
    }
    if (!problems.isEmpty()) {
      details.put("problems", problems);
    }
    return new OnceOnlyHealth(!problems.isEmpty(), details);
  }
}
