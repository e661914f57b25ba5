package dev.onceonly;

import dev.onceonly.events.Events;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.external.ExternalEffects;
import dev.onceonly.external.ProbeReport;
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
 * <p>Given the external effects ({@link Builder#externalEffects}), each pass then also runs their
 * status probes ({@link ExternalEffects#resolveUnknown()}), which settle unknown claims as their
 * providers' records say. Thread-safe.
 */
public final class Reconciler {
  private final IntentStore intents;
  private final IntentPublisher publisher;
  private final int batchSize;
  private final int maxBatches;
  private final Events events;
  private final ExternalEffects effects;

  private Reconciler(Builder b) {
    this.events = b.events;
    this.effects = b.effects;
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
   * Runs one pass: pages through every intent without a receipt, in order, and publishes each;
   * then, if it was given the external effects, runs their due status probes.
   *
   * @return what the pass did
   */
  public Report reconcile() {
    long started = System.nanoTime();
    Report report = pass();
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
    ProbeReport probes = effects == null ? ProbeReport.NONE : effects.resolveUnknown();
    return new Report(examined, published, queued, conflicts, dead, batches, probes);
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
   * @param probes what the status probes of unknown external claims did ({@link ProbeReport#NONE}
   *     without external effects)
   */
  public record Report(
      int examined,
      int published,
      int alreadyQueued,
      int conflicts,
      int deadLettered,
      int batches,
      ProbeReport probes) {
    /**
     * Refuses a null probe report.
     *
     * @param examined see the record
     * @param published see the record
     * @param alreadyQueued see the record
     * @param conflicts see the record
     * @param deadLettered see the record
     * @param batches see the record
     * @param probes see the record
     */
    public Report {
      Objects.requireNonNull(probes, "probes");
    }

    /**
     * A pass that ran no status probe.
     *
     * @param examined see the record
     * @param published see the record
     * @param alreadyQueued see the record
     * @param conflicts see the record
     * @param deadLettered see the record
     * @param batches see the record
     */
    public Report(
        int examined,
        int published,
        int alreadyQueued,
        int conflicts,
        int deadLettered,
        int batches) {
      this(examined, published, alreadyQueued, conflicts, deadLettered, batches, ProbeReport.NONE);
    }
  }

  /** Configures a {@link Reconciler}. Not thread-safe. */
  public static final class Builder {
    private final IntentStore intents;
    private final IntentPublisher publisher;
    private int batchSize = 100;
    private int maxBatches = 1000;
    private Events events = Events.none();
    private ExternalEffects effects;

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
     * Makes every pass also run the status probes of these external effects' unknown claims ({@link
     * ExternalEffects#resolveUnknown()}). Default: none.
     *
     * @param effects the external effects, usually {@code once.externalEffects()}
     * @return this builder
     */
    public Builder externalEffects(ExternalEffects effects) {
      this.effects = Objects.requireNonNull(effects, "effects");
      return this;
    }

    /** {@return the reconciler} */
    public Reconciler build() {
      return new Reconciler(this);
    }
  }
}
