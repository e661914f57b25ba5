package dev.onceonly.spring;

import dev.onceonly.OnceOnlyBuilder;
import dev.onceonly.queue.RateLimit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;

/**
 * The limits of queues as the application declares them: under {@code onceonly.queues.<name>.*} and
 * on {@link OnceOnlyHandler} beans. Both are declared on the store's builder before it is built,
 * since a limit is the store's (every worker and every instance claims under it), not one worker's.
 * A queue's limit declared twice with different values (in the properties and on a bean, or on two
 * beans) refuses the start, naming both places, rather than letting one silently win.
 */
final class QueueLimitSettings {
  private final Map<String, Declared> declared = new LinkedHashMap<>();

  private QueueLimitSettings() {}

  /** One limit's value and where it was declared. */
  private record Declared(Object value, String where) {}

  /**
   * Declares on {@code builder} every queue limit of the properties and of the handler beans.
   *
   * @throws OnceOnlyConfigurationException if a value is bad or declared twice differently
   */
  static void apply(
      OnceOnlyBuilder builder, OnceOnlyProperties properties, ListableBeanFactory beans) {
    QueueLimitSettings s = new QueueLimitSettings();
    properties
        .queues()
        .forEach(
            (queue, q) -> {
              String where = "onceonly.queues." + queue;
              s.put(queue, "concurrency-limit", q.concurrencyLimit(), where);
              s.put(
                  queue,
                  "concurrency-limit-per-partition",
                  q.concurrencyLimitPerPartition(),
                  where);
              s.put(queue, "rate-limit", rate(q.rateLimit(), where), where);
              s.put(
                  queue, "rate-limit-per-partition", rate(q.rateLimitPerPartition(), where), where);
            });
    for (String name : beans.getBeanNamesForAnnotation(OnceOnlyHandler.class)) {
      OnceOnlyHandler spec = beans.findAnnotationOnBean(name, OnceOnlyHandler.class);
      String where = "@OnceOnlyHandler on bean '" + name + "'";
      List<String> queues = spec.queue().isEmpty() ? List.of(spec.queues()) : List.of(spec.queue());
      for (String queue : queues) {
        s.put(queue, "concurrency-limit", positive(spec.concurrencyLimit()), where);
        s.put(
            queue,
            "concurrency-limit-per-partition",
            positive(spec.concurrencyLimitPerPartition()),
            where);
        s.put(queue, "rate-limit", rate(blank(spec.rateLimit()), where), where);
        s.put(
            queue,
            "rate-limit-per-partition",
            rate(blank(spec.rateLimitPerPartition()), where),
            where);
      }
    }
    s.declare(builder);
  }

  private void put(String queue, String limit, Object value, String where) {
    if (value == null) {
      return;
    }
    String id = queue + "\u0000" + limit;
    Declared before = declared.putIfAbsent(id, new Declared(value, where));
    if (before != null && !before.value.equals(value)) {
      throw new OnceOnlyConfigurationException(
          "the "
              + limit
              + " of queue '"
              + queue
              + "' is declared twice: "
              + text(before.value)
              + " by "
              + before.where
              + ", "
              + text(value)
              + " by "
              + where,
          "declare each queue's limit in one place (a limit is the queue's, over every worker)",
          null);
    }
  }

  private void declare(OnceOnlyBuilder builder) {
    Map<String, BiConsumer<String, Object>> setters =
        Map.of(
            "concurrency-limit", (q, v) -> builder.concurrencyLimit(q, (Integer) v),
            "concurrency-limit-per-partition",
                (q, v) -> builder.concurrencyLimitPerPartition(q, (Integer) v),
            "rate-limit", (q, v) -> builder.rateLimit(q, (RateLimit) v),
            "rate-limit-per-partition", (q, v) -> builder.rateLimitPerPartition(q, (RateLimit) v));
    declared.forEach(
        (id, d) -> {
          int cut = id.indexOf('\u0000');
          String queue = id.substring(0, cut);
          String limit = id.substring(cut + 1);
          try {
            setters.get(limit).accept(queue, d.value);
          } catch (IllegalArgumentException e) {
            throw new OnceOnlyConfigurationException(
                d.where + ": the " + limit + " of queue '" + queue + "': " + e.getMessage(),
                "correct the limit",
                e);
          }
        });
  }

  /**
   * Parses a rate limit spelled {@code claims/window}, the window a Spring Boot duration ({@code
   * 100/1m}, {@code 5/500ms}, {@code 100/PT1M}).
   *
   * @throws IllegalArgumentException if the spelling or a bound is wrong
   */
  static RateLimit rate(String spec) {
    Objects.requireNonNull(spec, "rate limit");
    int slash = spec.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException(
          "rate limit '" + spec + "' is not claims/window, such as 100/1m");
    }
    String claims = spec.substring(0, slash).strip();
    String window = spec.substring(slash + 1).strip();
    int n;
    try {
      n = Integer.parseInt(claims);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "rate limit '" + spec + "': '" + claims + "' is not a whole number of claims");
    }
    try {
      return RateLimit.of(n, DurationStyle.detectAndParse(window));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("rate limit '" + spec + "': " + e.getMessage());
    }
  }

  private static RateLimit rate(String spec, String where) {
    if (spec == null) {
      return null;
    }
    try {
      return rate(spec);
    } catch (IllegalArgumentException e) {
      throw new OnceOnlyConfigurationException(
          where + ": " + e.getMessage(), "spell it claims/window, such as 100/1m", e);
    }
  }

  private static Integer positive(int value) {
    return value == 0 ? null : value;
  }

  private static String blank(String value) {
    return value.isEmpty() ? null : value;
  }

  private static String text(Object value) {
    return value instanceof RateLimit r ? r.claims() + "/" + r.window() : String.valueOf(value);
  }
}
