package dev.onceonly;

import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Finds registered intents that have no receipt yet and hands them back to a publisher, so that
 * nothing registered is forgotten (a producer that crashed between registering and publishing, a
 * message lost by a transport).
 *
 * <p>It reads in bounded batches in a stable order (scope, then key), so a pass is reproducible and
 * never an unbounded read. Running it twice, or in two processes at once, is safe: a transport that
 * deduplicates by key publishes nothing twice while the message waits, and the receipt store never
 * runs an effect twice.
 *
 * <p>{@link Builder#afterEachPass} adds work to every pass, such as the status probes of the
 * external effects' unknown claims: {@code .afterEachPass(once.externalEffects()::resolveUnknown)}.
 * Thread-safe.
 */
public final class Reconciler {
  private final IntentStore intents;
  private final IntentPublisher publisher;
  private final int batchSize;
  private final int maxBatches;
  private final Events events;
  private final Runnable afterEachPass;

  private Reconciler(Builder b) {
    this.events = b.events;
    this.afterEachPass = b.afterEachPass;
    this.intents = b.intents;
    this.publisher = b.publisher;
    this.batchSize = b.batchSize;
    this.maxBatches = b.maxBatches;
  }

  /**
   * Returns a reconciler with batches of 100 and at most 1,000 batches a pass.
   *
   * @param intents where intents are registered
   * @param publisher where to publish them again
   * @return the reconciler
   */
  public static Reconciler of(IntentStore intents, IntentPublisher publisher) {
    return builder(intents, publisher).build();
  }

  /**
   * Returns a builder.
   *
   * @param intents where intents are registered
   * @param publisher where to publish them again
   * @return the builder
   */
  public static Builder builder(IntentStore intents, IntentPublisher publisher) {
    return new Builder(intents, publisher);
  }

  /**
   * Runs one pass: pages through every intent without a receipt, in order, and publishes each.
   *
   * @return what the pass did
   */
  public Report reconcile() {
    long started = System.nanoTime();
    Report report = pass();
    afterEachPass.run();
    if (events.enabled()) {
      events.publish(
          new OnceOnlyEvent.Reconciled(
              report.examined(),
              report.published(),
              report.alreadyQueued(),
              report.conflicts(),
              report.deadLettered(),
              Duration.ofNanos(System.nanoTime() - started)));
    }
    return report;
  }

  private Report pass() {
    int examined = 0;
    int published = 0;
    int queued = 0;
    int conflicts = 0;
    int dead = 0;
    int batches = 0;
    List<Intent> page = intents.pending(batchSize);
    while (!page.isEmpty() && batches < maxBatches) {
      batches++;
      for (Intent intent : page) {
        examined++;
        switch (publisher.publish(intent)) {
          case PUBLISHED -> published++;
          case ALREADY_QUEUED -> queued++;
          case CONFLICT -> conflicts++;
          case DEAD_LETTERED -> dead++;
        }
      }
      if (page.size() < batchSize) {
        break;
      }
      page = intents.pendingAfter(page.get(page.size() - 1).key(), batchSize);
    }
    return new Report(examined, published, queued, conflicts, dead, batches);
  }

  /**
   * What one pass did.
   *
   * @param examined intents without a receipt that were looked at
   * @param published intents handed to the publisher anew
   * @param alreadyQueued intents whose message was still waiting
   * @param conflicts intents whose key holds other content in the transport
   * @param deadLettered intents whose message waits in the dead letters (not published again)
   * @param batches batches read
   */
  public record Report(
      int examined,
      int published,
      int alreadyQueued,
      int conflicts,
      int deadLettered,
      int batches) {}

  /** Configures a {@link Reconciler}. Not thread-safe. */
  public static final class Builder {
    private final IntentStore intents;
    private final IntentPublisher publisher;
    private int batchSize = 100;
    private int maxBatches = 1000;
    private Events events = Events.none();
    private Runnable afterEachPass = () -> {};

    private Builder(IntentStore intents, IntentPublisher publisher) {
      this.intents = Objects.requireNonNull(intents, "intents");
      this.publisher = Objects.requireNonNull(publisher, "publisher");
    }

    /**
     * Sets how many intents are read at once. Default 100.
     *
     * @param size from 1 to 10,000
     * @return this builder
     */
    public Builder batchSize(int size) {
      if (size <= 0 || size > 10_000) {
        throw new IllegalArgumentException("batchSize must be between 1 and 10000");
      }
      this.batchSize = size;
      return this;
    }

    /**
     * Sets the most batches one pass reads. Default 1,000.
     *
     * @param batches at least 1
     * @return this builder
     */
    public Builder maxBatches(int batches) {
      if (batches <= 0) {
        throw new IllegalArgumentException("maxBatches must be > 0");
      }
      this.maxBatches = batches;
      return this;
    }

    /**
     * Sets where each pass is published ({@link OnceOnlyEvent.Reconciled}), usually the store's
     * {@code OnceOnly.events()}. Default: nowhere.
     *
     * @param events the events
     * @return this builder
     */
    public Builder events(Events events) {
      this.events = Objects.requireNonNull(events, "events");
      return this;
    }

    /**
     * Adds work run at the end of every pass, on the pass's thread, for example the status probes
     * of unknown external claims: {@code .afterEachPass(once.externalEffects()::resolveUnknown)}
     * (see {@link dev.onceonly.external.ExternalEffects#resolveUnknown()}). What it throws, the
     * pass throws. Default: nothing.
     *
     * @param work the work
     * @return this builder
     */
    public Builder afterEachPass(Runnable work) {
      this.afterEachPass = Objects.requireNonNull(work, "work");
      return this;
    }

    /** {@return the reconciler} */
    public Reconciler build() {
      return new Reconciler(this);
    }
  }
}
