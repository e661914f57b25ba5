package dev.onceonly.dashboard;

import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.events.OnceOnlyListener;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Counts, per minute, the messages one store instance sent and handled, from its events, for the
 * dashboard's throughput chart. The store keeps no row of a handled message (acknowledging deletes
 * it), so these two figures exist only where they happen: register the same instance as a listener
 * of the store and with the dashboard.
 *
 * <pre>{@code
 * Throughput throughput = Throughput.create();
 * OnceOnly once = OnceOnly.builder().sqlite(file).listener(throughput).build();
 * DashboardServlet dashboard = DashboardServlet.builder(once).throughput(throughput).build();
 * }</pre>
 *
 * <p>What it counts: a send answered {@code sent} (not a repeated or conflicting one), and a
 * settlement {@code completed}; per minute of its clock, at the moment the event reaches it (a
 * millisecond or so after the fact, so an event at the end of a minute may count in the next one).
 * It sees this instance only, from its creation on, and keeps the last {@link #KEPT_MINUTES}
 * minutes in memory: minutes before its creation, another instance's work and the time before a
 * restart are not counted, and the chart says "no data" for them, never zero. Events dropped by a
 * full buffer ({@link dev.onceonly.events.Events#dropped()}) are missing from the counts, and a
 * send inside the caller's transaction counts when it returns, even if that transaction then rolls
 * back.
 *
 * <p>Thread-safe.
 */
public final class Throughput implements OnceOnlyListener {
  /** How many minutes are kept: the last hour. */
  public static final int KEPT_MINUTES = 60;

  private final InstantSource clock;
  private final Instant since;
  private final TreeMap<Instant, long[]> minutes = new TreeMap<>();

  private Throughput(InstantSource clock) {
    this.clock = clock;
    this.since = clock.instant();
  }

  /**
   * Starts counting now, by the system clock.
   *
   * @return the counts, empty
   */
  public static Throughput create() {
    return of(InstantSource.system());
  }

  /**
   * Starts counting now, by {@code clock}: give it the store's clock if the store has one of its
   * own, so that the minutes match the rest of the dashboard.
   *
   * @param clock the clock that places each event in its minute
   * @return the counts, empty
   */
  public static Throughput of(InstantSource clock) {
    return new Throughput(Objects.requireNonNull(clock, "clock"));
  }

  /**
   * Counts a sent or completed message; ignores every other event.
   *
   * @param event what the store did
   */
  @Override
  public void onEvent(OnceOnlyEvent event) {
    int series;
    if (event instanceof OnceOnlyEvent.MessageSent s && s.status().equals("sent")) {
      series = 0;
    } else if (event instanceof OnceOnlyEvent.MessageSettled s && s.result().equals("completed")) {
      series = 1;
    } else {
      return;
    }
    Instant minute = clock.instant().truncatedTo(ChronoUnit.MINUTES);
    synchronized (minutes) {
      minutes.computeIfAbsent(minute, m -> new long[2])[series]++;
      while (minutes.size() > KEPT_MINUTES
          || minutes.firstKey().isBefore(minute.minus(Duration.ofMinutes(KEPT_MINUTES)))) {
        minutes.pollFirstEntry();
      }
    }
  }

  /** {@return when counting started} */
  public Instant since() {
    return since;
  }

  /**
   * Returns the count of one minute.
   *
   * @param minute the start of a whole minute
   * @return the messages sent and handled in it, or empty when that minute was not watched (before
   *     {@link #since()}'s minute, or dropped as older than {@link #KEPT_MINUTES})
   */
  Optional<long[]> minute(Instant minute, Instant now) {
    Instant first = since.truncatedTo(ChronoUnit.MINUTES);
    Instant oldestKept =
        now.truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(KEPT_MINUTES - 1L));
    if (minute.isBefore(first) || minute.isBefore(oldestKept)) {
      return Optional.empty();
    }
    synchronized (minutes) {
      long[] n = minutes.get(minute);
      return Optional.of(n == null ? new long[2] : n.clone());
    }
  }
}
