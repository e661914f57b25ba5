package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.BatchHandler;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a {@link Worker} for every bean annotated {@link OnceOnlyHandler}: started when the context
 * has been refreshed (every singleton exists, so handlers find what they need), closed when the
 * context closes, before the data source is. Closing stops the claims, waits up to each worker's
 * shutdown timeout for handlers in flight, then cancels the rest and releases their messages for
 * immediate redelivery (see {@link Worker#close()}); the workers close in parallel. The phase is
 * {@code onceonly.workers.phase}: by default the last to start and the first to stop. Thread-safe.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
public final class OnceOnlyWorkers implements SmartLifecycle {
  private final ListableBeanFactory beans;
  private final OnceOnly once;
  private final OnceOnlyProperties properties;
  private final List<OnceOnlyHandlerDecorator> decorators;
  private final Map<String, Worker> running = Collections.synchronizedMap(new LinkedHashMap<>());
  private volatile boolean started;

  /**
   * Creates the workers' lifecycle; nothing runs before {@link #start()}.
   *
   * @param beans where the handler beans are found
   * @param once the store whose queue the workers claim from
   * @param properties the defaults of lease, shutdown timeout, retry policy and phase
   */
  public OnceOnlyWorkers(ListableBeanFactory beans, OnceOnly once, OnceOnlyProperties properties) {
    this(beans, once, properties, List.of());
  }

  /**
   * Creates the workers' lifecycle whose handlers are wrapped by {@code decorators}, the first
   * innermost; nothing runs before {@link #start()}.
   *
   * @param beans where the handler beans are found
   * @param once the store whose queue the workers claim from
   * @param properties the defaults of lease, shutdown timeout, retry policy and phase
   * @param decorators what wraps each handler, in order
   */
  public OnceOnlyWorkers(
      ListableBeanFactory beans,
      OnceOnly once,
      OnceOnlyProperties properties,
      List<OnceOnlyHandlerDecorator> decorators) {
    this.beans = Objects.requireNonNull(beans, "beans");
    this.once = Objects.requireNonNull(once, "once");
    this.properties = Objects.requireNonNull(properties, "properties");
    this.decorators = List.copyOf(decorators);
  }

  /**
   * Builds and starts one worker per handler bean.
   *
   * @throws IllegalStateException if an annotated bean is no {@link Handler} (with a batch, no
   *     {@link BatchHandler}), or its annotation holds a bad value (the message names the bean);
   *     workers already started are closed
   */
  @Override
  public synchronized void start() {
    if (started) {
      return;
    }
    JobQueue queue = once.queue(properties.retry().build());
    try {
      for (String name : beans.getBeanNamesForAnnotation(OnceOnlyHandler.class)) {
        running.put(name, worker(queue, name).start());
      }
    } catch (RuntimeException e) {
      closeAll();
      throw e;
    }
    started = true;
  }

  private Worker worker(JobQueue queue, String name) {
    OnceOnlyHandler spec = beans.findAnnotationOnBean(name, OnceOnlyHandler.class);
    Object bean = beans.getBean(name);
    try {
      Worker.Builder b =
          builder(queue, spec, name, bean)
              .threads(spec.threads())
              .lease(duration(spec.lease(), properties.workers().lease()))
              .shutdownTimeout(
                  duration(spec.shutdownTimeout(), properties.workers().shutdownTimeout()));
      if (spec.prefetch() != -1) {
        b.prefetch(spec.prefetch());
      }
      if (!spec.executionTimeout().isEmpty()) {
        b.executionTimeout(DurationStyle.detectAndParse(spec.executionTimeout()));
      }
      return b.build();
    } catch (IllegalArgumentException | NullPointerException e) {
      // DurationStyle's refusal of a bad duration is an IllegalArgumentException too
      throw new OnceOnlyConfigurationException(
          "@OnceOnlyHandler on bean '" + name + "': " + e.getMessage(),
          "correct that attribute of the annotation, or the onceonly.workers.* default it takes",
          e);
    }
  }

  /** Returns the builder of a {@link Handler} bean, or of a {@link BatchHandler} bean. */
  private Worker.Builder builder(JobQueue queue, OnceOnlyHandler spec, String name, Object bean) {
    boolean batch = spec.batch() != 0;
    Class<?> expected = batch ? BatchHandler.class : Handler.class;
    if (!expected.isInstance(bean)) {
      throw new OnceOnlyConfigurationException(
          "bean '"
              + name
              + "' is annotated @OnceOnlyHandler"
              + (batch ? "(batch = " + spec.batch() + ")" : "")
              + " but is no "
              + expected.getName(),
          bean instanceof BatchHandler
              ? "set the annotation's batch to the most jobs given at once"
              : "implement " + expected.getName() + " or remove the annotation",
          null);
    }
    if (batch) {
      return Worker.batchBuilder(queue, spec.queue(), spec.batch(), (BatchHandler) bean);
    }
    Handler decorated = (Handler) bean;
    for (OnceOnlyHandlerDecorator d : decorators) {
      decorated = Objects.requireNonNull(d.decorate(spec.queue(), decorated), "decorated handler");
    }
    return Worker.builder(queue, spec.queue(), decorated);
  }

  private static Duration duration(String value, Duration fallback) {
    return value.isEmpty() ? fallback : DurationStyle.detectAndParse(value);
  }

  /** Closes every worker, in parallel, each within its shutdown timeout. */
  @Override
  public synchronized void stop() {
    closeAll();
    started = false;
  }

  private void closeAll() {
    List<Thread> closing = new ArrayList<>();
    synchronized (running) {
      for (Map.Entry<String, Worker> e : running.entrySet()) {
        Thread t = new Thread(e.getValue()::close, "onceonly-close-" + e.getKey());
        t.start();
        closing.add(t);
      }
      running.clear();
    }
    for (Thread t : closing) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public boolean isRunning() {
    return started;
  }

  @Override
  public int getPhase() {
    return properties.workers().phase();
  }

  /**
   * Returns the running workers by the name of their handler bean, for their counters.
   *
   * @return an immutable copy; empty before start and after stop
   */
  public Map<String, Worker> workers() {
    synchronized (running) {
      return Map.copyOf(running);
    }
  }
}
