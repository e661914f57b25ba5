package dev.onceonly.spring;

import dev.onceonly.OnceOnly;
import dev.onceonly.queue.BatchHandler;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Worker;
import dev.onceonly.workflow.StepHandler;
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
 * {@code onceonly.workers.phase}: by default the last to start and the first to stop. With {@code
 * spring.threads.virtual.enabled=true} on Java 21 or newer, each worker's handlers run on virtual
 * threads ({@link Worker.Builder#threadFactory}), named {@code onceonly-<queue>-<n>}. Thread-safe.
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
        List<String> queues = queues(name);
        for (String q : queues) {
          // A bean of several queues has a worker per queue, named for both.
          running.put(queues.size() == 1 ? name : name + ":" + q, worker(queue, name, q).start());
        }
      }
    } catch (RuntimeException e) {
      closeAll();
      throw e;
    }
    started = true;
  }

  /** The queues of a handler bean: its annotation's {@code queue} or its {@code queues}. */
  private List<String> queues(String name) {
    OnceOnlyHandler spec = beans.findAnnotationOnBean(name, OnceOnlyHandler.class);
    boolean one = !spec.queue().isEmpty();
    if (one == (spec.queues().length > 0)) {
      throw new OnceOnlyConfigurationException(
          "@OnceOnlyHandler on bean '"
              + name
              + "' names "
              + (one ? "both queue and queues" : "no queue"),
          "give the annotation either queue = \"...\" or queues = {...}",
          null);
    }
    List<String> queues = one ? List.of(spec.queue()) : List.of(spec.queues());
    if (new java.util.HashSet<>(queues).size() != queues.size()) {
      throw new OnceOnlyConfigurationException(
          "@OnceOnlyHandler on bean '" + name + "' names a queue twice: " + queues,
          "name each queue once",
          null);
    }
    return queues;
  }

  private Worker worker(JobQueue queue, String name, String queueName) {
    OnceOnlyHandler spec = beans.findAnnotationOnBean(name, OnceOnlyHandler.class);
    Object bean = beans.getBean(name);
    try {
      Worker.Builder b =
          builder(queue, spec, queueName, name, bean)
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
      if (virtualThreads()) {
        // Spring's own factory of virtual threads, as its task executors use under the property
        b.threadFactory(
            new org.springframework.core.task.VirtualThreadTaskExecutor(
                    "onceonly-" + queueName + "-")
                .getVirtualThreadFactory());
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
  private Worker.Builder builder(
      JobQueue queue, OnceOnlyHandler spec, String queueName, String name, Object bean) {
    boolean batch = spec.batch() != 0;
    if (!batch && bean instanceof StepHandler steps) {
      return Worker.builder(queue, queueName, decorate(queueName, steps(steps)));
    }
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
              : "implement "
                  + expected.getName()
                  + (batch ? "" : " or " + StepHandler.class.getName())
                  + " or remove the annotation",
          null);
    }
    if (batch) {
      return Worker.batchBuilder(queue, queueName, spec.batch(), (BatchHandler) bean);
    }
    return Worker.builder(queue, queueName, decorate(queueName, (Handler) bean));
  }

  private Handler decorate(String queueName, Handler handler) {
    Handler decorated = handler;
    for (OnceOnlyHandlerDecorator d : decorators) {
      decorated = Objects.requireNonNull(d.decorate(queueName, decorated), "decorated handler");
    }
    return decorated;
  }

  /**
   * The workflows' handler of a step bean, each delivery in a transaction of the context's one
   * transaction manager when there is one (the step's completion joins it through {@link
   * SpringCurrentTransaction}); else the completion's own transaction.
   */
  private Handler steps(StepHandler steps) {
    Handler handler = once.workflows().handler(steps);
    if (!SPRING_TX) {
      return handler;
    }
    org.springframework.transaction.PlatformTransactionManager manager =
        beans
            .getBeanProvider(org.springframework.transaction.PlatformTransactionManager.class)
            .getIfUnique();
    if (manager == null) {
      return handler;
    }
    SpringHandlerTransaction tx = new SpringHandlerTransaction(manager);
    return job ->
        tx.inTransaction(
            () -> {
              handler.handle(job);
              return null;
            });
  }

  private static final boolean SPRING_TX =
      org.springframework.util.ClassUtils.isPresent(
          "org.springframework.transaction.PlatformTransactionManager",
          OnceOnlyWorkers.class.getClassLoader());

  /**
   * Whether the application runs its threads virtual: {@code spring.threads.virtual.enabled=true}
   * on Java 21 or newer, as Spring Boot decides it for its own executors.
   */
  private boolean virtualThreads() {
    org.springframework.core.env.Environment environment =
        beans.getBeanProvider(org.springframework.core.env.Environment.class).getIfAvailable();
    // What Boot's Threading.VIRTUAL checks; that class moved package between Boot 3 and 4.
    return environment != null
        && Runtime.version().feature() >= 21
        && environment.getProperty("spring.threads.virtual.enabled", Boolean.class, false);
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
