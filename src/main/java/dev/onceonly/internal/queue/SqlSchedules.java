package dev.onceonly.internal.queue;

import dev.onceonly.InvalidRequestException;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.receipts.StoreContext;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.Schedule;
import dev.onceonly.queue.ScheduleResult;
import dev.onceonly.queue.ScheduleSpec;
import dev.onceonly.queue.Schedules;
import dev.onceonly.queue.SendResult;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.regex.Pattern;

/**
 * The {@link Schedules} on SQL, firing through the {@link SqlJobQueue} that owns it: {@link
 * #fireIfDue} runs inside each claim, so that the queue's receivers fire its schedules.
 */
final class SqlSchedules implements Schedules {
  private static final System.Logger LOG = System.getLogger(Schedules.class.getName());
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");

  /** How often a receiver looks for due schedules of its queue when it knows of none due. */
  private static final long RECHECK_NANOS = 1_000_000_000L;

  /** The most schedules one firing pass takes per query. */
  private static final int PASS = 100;

  /** The most passes one {@link #fireDue()} runs. */
  private static final int MAX_PASSES = 100;

  private final StoreContext core;
  private final ScheduleStatements sql;
  private final InstantColumns times;
  private final SqlJobQueue queue;
  private final ConcurrentMap<String, Known> known = new ConcurrentHashMap<>();
  private final Set<String> unfireable = ConcurrentHashMap.newKeySet();

  /**
   * What a receiver last learned of its queue's schedules: the earliest next run (epoch ms,
   * Long.MAX_VALUE for none), whether a fixed delay waits for its run to leave, and when.
   */
  private record Known(long nextRun, boolean waiting, long checkedAtNanos) {}

  SqlSchedules(StoreContext core, String prefix, SqlJobQueue queue) {
    this.core = core;
    this.sql = new ScheduleStatements(prefix, core.database().sql());
    this.times = core.times();
    this.queue = queue;
  }

  // --- registration ---------------------------------------------------------------------------

  private record Definition(String name, String queue, ScheduleSpec spec, String payload) {
    String specText() {
      return ScheduleSlots.text(spec);
    }

    String catchUpText() {
      return spec.catchUp().text();
    }

    boolean sameAs(Schedule stored) {
      return queue.equals(stored.queue())
          && specText().equals(ScheduleSlots.text(stored.spec()))
          && catchUpText().equals(stored.spec().catchUp().text())
          && payload.equals(stored.payload().toString());
    }
  }

  private Definition define(String name, String queueName, ScheduleSpec spec, Object payload) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidRequestException("name", "must match " + NAME.pattern());
    }
    QueueNames.check("queue", queueName, QueueNames.QUEUE);
    Objects.requireNonNull(spec, "spec");
    ScheduleSlots.check(spec);
    byte[] canonical =
        core.requests().canonicalizer().canonicalize(core.requests().toTree(payload, "payload"));
    return new Definition(name, queueName, spec, new String(canonical, StandardCharsets.UTF_8));
  }

  @Override
  public ScheduleResult register(String name, String queueName, ScheduleSpec spec, Object payload) {
    Definition d = define(name, queueName, spec, payload);
    ScheduleResult result =
        core.database()
            .write(
                c -> {
                  if (insert(c, d)) {
                    return new ScheduleResult(ScheduleResult.Status.REGISTERED, read(c, name));
                  }
                  Schedule stored = read(c, name);
                  return new ScheduleResult(
                      d.sameAs(stored)
                          ? ScheduleResult.Status.UNCHANGED
                          : ScheduleResult.Status.CONFLICT,
                      stored);
                });
    forget(queueName);
    return result;
  }

  @Override
  public ScheduleResult update(String name, String queueName, ScheduleSpec spec, Object payload) {
    Definition d = define(name, queueName, spec, payload);
    ScheduleResult result =
        core.database()
            .write(
                c -> {
                  if (insert(c, d)) {
                    return new ScheduleResult(ScheduleResult.Status.REGISTERED, read(c, name));
                  }
                  Stored before = readStored(c, name);
                  if (d.sameAs(before.schedule())) {
                    return new ScheduleResult(ScheduleResult.Status.UNCHANGED, before.schedule());
                  }
                  replace(c, d, before);
                  forget(before.schedule().queue());
                  return new ScheduleResult(ScheduleResult.Status.UPDATED, read(c, name));
                });
    forget(queueName);
    return result;
  }

  private boolean insert(Connection c, Definition d) throws SQLException {
    long now = core.clock().millis();
    try (PreparedStatement ps = c.prepareStatement(sql.insert)) {
      ps.setString(1, d.name());
      ps.setString(2, d.queue());
      ps.setString(3, d.specText());
      ps.setString(4, d.catchUpText());
      ps.setString(5, d.payload());
      times.set(ps, 6, now);
      times.setNullable(ps, 7, first(d.spec(), Instant.ofEpochMilli(now), null));
      times.set(ps, 8, now);
      times.set(ps, 9, now);
      return ps.executeUpdate() == 1;
    }
  }

  private void replace(Connection c, Definition d, Stored before) throws SQLException {
    long now = core.clock().millis();
    Long lastSlot = before.schedule().lastSlot().map(Instant::toEpochMilli).orElse(null);
    Long next =
        d.spec() instanceof ScheduleSpec.FixedDelay && before.lastKey() != null
            ? null // waits until the last run has left the queue, as before
            : first(d.spec(), Instant.ofEpochMilli(now), lastSlot);
    try (PreparedStatement ps = c.prepareStatement(sql.replace)) {
      ps.setString(1, d.queue());
      ps.setString(2, d.specText());
      ps.setString(3, d.catchUpText());
      ps.setString(4, d.payload());
      times.set(ps, 5, now);
      times.setNullable(ps, 6, next);
      times.set(ps, 7, now);
      ps.setString(8, d.name());
      ps.executeUpdate();
    }
  }

  /**
   * The first slot of a schedule registered or replaced now: a cron expression's first slot after
   * now; a fixed rate's or delay's now. Never one at or before {@code lastSlot}, a slot already
   * run. Null when a cron expression has no slot left.
   */
  private static Long first(ScheduleSpec spec, Instant now, Long lastSlot) {
    if (spec instanceof ScheduleSpec.Cron || (lastSlot != null && lastSlot >= now.toEpochMilli())) {
      return following(spec, now, now, lastSlot);
    }
    return now.toEpochMilli();
  }

  /** The first slot after now and after {@code lastSlot}; null when there is none. */
  private static Long following(ScheduleSpec spec, Instant anchor, Instant now, Long lastSlot) {
    Instant after =
        lastSlot == null ? now : Instant.ofEpochMilli(Math.max(now.toEpochMilli(), lastSlot));
    if (spec instanceof ScheduleSpec.FixedDelay d) {
      return after.plus(d.delay()).toEpochMilli();
    }
    return ScheduleSlots.after(spec, anchor, after).map(Instant::toEpochMilli).orElse(null);
  }

  // --- pause, resume, delete, read ------------------------------------------------------------

  @Override
  public boolean pause(String name) {
    return changed(
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql.pause)) {
            times.set(ps, 1, core.clock().millis());
            ps.setString(2, name);
            return ps.executeUpdate() == 1;
          }
        });
  }

  @Override
  public boolean resume(String name) {
    return changed(
        c -> {
          Optional<Stored> stored = findStored(c, name);
          if (stored.isEmpty() || !stored.get().schedule().paused()) {
            return false;
          }
          Schedule s = stored.get().schedule();
          long now = core.clock().millis();
          Long next =
              s.spec() instanceof ScheduleSpec.FixedDelay && stored.get().lastKey() != null
                  ? null
                  : following(
                      s.spec(),
                      stored.get().anchor(),
                      Instant.ofEpochMilli(now),
                      s.lastSlot().map(Instant::toEpochMilli).orElse(null));
          try (PreparedStatement ps = c.prepareStatement(sql.resume)) {
            times.setNullable(ps, 1, next);
            times.set(ps, 2, now);
            ps.setString(3, name);
            return ps.executeUpdate() == 1;
          }
        });
  }

  @Override
  public boolean delete(String name) {
    return changed(
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql.delete)) {
            ps.setString(1, name);
            return ps.executeUpdate() == 1;
          }
        });
  }

  /**
   * Runs a change of one schedule in a write transaction, then forgets what this instance knew of
   * every queue's next run, so that the next claim looks again.
   */
  private boolean changed(dev.onceonly.internal.db.Database.Work<Boolean> change) {
    boolean done = core.database().write(change);
    known.clear();
    return done;
  }

  @Override
  public Optional<Schedule> find(String name) {
    return core.database().read(c -> findStored(c, name).map(Stored::schedule));
  }

  @Override
  public List<Schedule> list() {
    return core.database()
        .read(
            c -> {
              try (PreparedStatement ps = c.prepareStatement(sql.list)) {
                return rows(ps).stream().map(Stored::schedule).toList();
              }
            });
  }

  @Override
  public List<Instant> upcoming(String name, int max) {
    if (max < 1 || max > MAX_UPCOMING) {
      throw new IllegalArgumentException("max must be between 1 and " + MAX_UPCOMING + ": " + max);
    }
    Optional<Stored> stored = core.database().read(c -> findStored(c, name));
    List<Instant> out = new ArrayList<>();
    Optional<Instant> slot = stored.flatMap(s -> s.schedule().nextRun());
    while (slot.isPresent() && out.size() < max) {
      out.add(slot.get());
      slot = ScheduleSlots.after(stored.get().schedule().spec(), stored.get().anchor(), slot.get());
    }
    return out;
  }

  @Override
  public Optional<SendResult> runNow(String name, Instant slot) {
    Objects.requireNonNull(slot, "slot");
    List<OnceOnlyEvent.ScheduleFired> fired = new ArrayList<>();
    Optional<SendResult> sent =
        core.database()
            .write(
                c -> {
                  fired.clear(); // a transaction run again starts over
                  Optional<Stored> stored = findStored(c, name);
                  if (stored.isEmpty()
                      || !stored.get().schedule().nextRun().equals(Optional.of(slot))) {
                    return Optional.empty();
                  }
                  return runSlot(c, stored.get(), slot, fired);
                });
    publish(fired);
    known.clear();
    return sent;
  }

  /** Sends the run of {@code slot}, the schedule's next, if no one moved the schedule on first. */
  private Optional<SendResult> runSlot(
      Connection c, Stored stored, Instant slot, List<OnceOnlyEvent.ScheduleFired> fired)
      throws SQLException {
    Schedule s = stored.schedule();
    Long next =
        ScheduleSlots.after(s.spec(), stored.anchor(), slot)
            .map(Instant::toEpochMilli)
            .orElse(null);
    String key = Schedule.runKey(s.name(), slot);
    try (PreparedStatement ps = c.prepareStatement(sql.advance)) {
      times.setNullable(ps, 1, next);
      times.set(ps, 2, slot.toEpochMilli());
      ps.setString(3, key);
      times.set(ps, 4, core.clock().millis());
      ps.setString(5, s.name());
      times.set(ps, 6, slot.toEpochMilli());
      if (ps.executeUpdate() != 1) {
        return Optional.empty(); // fired or run by another transaction first
      }
    }
    SendResult result =
        queue.insertStored(c, Message.of(s.queue(), key, s.payload()), s.payload().toString());
    if (result.status() == SendResult.Status.SENT) {
      fired.add(new OnceOnlyEvent.ScheduleFired(s.name(), s.queue(), slot));
    }
    return Optional.of(result);
  }

  /** A schedule with the columns only firing needs. */
  private record Stored(Schedule schedule, Instant anchor, String lastKey) {}

  private Schedule read(Connection c, String name) throws SQLException {
    return findStored(c, name).orElseThrow().schedule();
  }

  private Stored readStored(Connection c, String name) throws SQLException {
    return findStored(c, name).orElseThrow();
  }

  private Optional<Stored> findStored(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.find)) {
      ps.setString(1, name);
      return rows(ps).stream().findFirst();
    }
  }

  private List<Stored> rows(PreparedStatement ps) throws SQLException {
    List<Stored> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        Long next = times.getNullable(rs, 7);
        Long last = times.getNullable(rs, 8);
        Schedule s =
            new Schedule(
                rs.getString(1),
                rs.getString(2),
                ScheduleSlots.parse(rs.getString(3), rs.getString(4)),
                core.readTree(rs.getString(5)),
                Optional.ofNullable(next).map(Instant::ofEpochMilli),
                Optional.ofNullable(last).map(Instant::ofEpochMilli),
                rs.getInt(10) != 0);
        out.add(new Stored(s, times.instant(rs, 6), rs.getString(9)));
      }
    }
    return out;
  }

  // --- firing ---------------------------------------------------------------------------------

  @Override
  public List<SendResult> fireDue() {
    List<SendResult> out = new ArrayList<>();
    // Each pass advances every due schedule it reads past now, so the next pass reads others;
    // bounded for schedules that cannot be fired and stay due.
    List<OnceOnlyEvent.ScheduleFired> fired = new ArrayList<>();
    for (int pass = 0; pass < MAX_PASSES; pass++) {
      List<SendResult> sent =
          core.database()
              .write(
                  c -> {
                    fired.clear(); // a transaction run again starts over
                    return fire(c, null, core.clock().instant(), fired);
                  });
      publish(fired); // after the commit: a rolled-back pass fired nothing
      out.addAll(sent);
      if (sent.isEmpty()) {
        break;
      }
    }
    known.clear();
    return out;
  }

  /**
   * Fires the due schedules of {@code queueName} on {@code c}, inside a claim of that queue, when
   * they may be due: at once when this instance knows of a slot due or has just changed a schedule,
   * otherwise at most once a second. Adds each run sent to {@code fired}, for the caller to publish
   * once the claim committed.
   */
  void fireIfDue(
      Connection c, String queueName, Instant now, List<OnceOnlyEvent.ScheduleFired> fired)
      throws SQLException {
    Known k = known.get(queueName);
    long nanos = System.nanoTime();
    if (k != null
        && k.nextRun() > now.toEpochMilli()
        && nanos - k.checkedAtNanos() < RECHECK_NANOS) {
      return;
    }
    fire(c, queueName, now, fired);
    known.put(queueName, next(c, queueName, nanos));
  }

  private Known next(Connection c, String queueName, long nanos) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.nextOfQueue)) {
      ps.setString(1, queueName);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        Long next = times.getNullable(rs, 1);
        return new Known(next == null ? Long.MAX_VALUE : next, rs.getLong(2) > 0, nanos);
      }
    }
  }

  private void forget(String queueName) {
    known.remove(queueName);
  }

  /** One pass: fixed delays whose run has left are released, then due slots are sent. */
  private List<SendResult> fire(
      Connection c, String queueName, Instant now, List<OnceOnlyEvent.ScheduleFired> fired)
      throws SQLException {
    release(c, queueName, now);
    List<Stored> due;
    try (PreparedStatement ps = c.prepareStatement(queueName == null ? sql.due : sql.dueOfQueue)) {
      int i = 1;
      if (queueName != null) {
        ps.setString(i++, queueName);
      }
      times.set(ps, i++, now.toEpochMilli());
      ps.setInt(i, PASS);
      due = rows(ps);
    }
    List<SendResult> out = new ArrayList<>();
    for (Stored s : due) {
      out.addAll(fireOne(c, s, now, fired));
    }
    return out;
  }

  private List<SendResult> fireOne(
      Connection c, Stored stored, Instant now, List<OnceOnlyEvent.ScheduleFired> fired)
      throws SQLException {
    Schedule s = stored.schedule();
    Instant due = s.nextRun().orElseThrow();
    List<Instant> slots;
    Long next;
    try {
      slots = ScheduleSlots.toRun(s.spec(), stored.anchor(), due, now);
      next =
          ScheduleSlots.after(s.spec(), stored.anchor(), now)
              .map(Instant::toEpochMilli)
              .orElse(null);
    } catch (RuntimeException | LinkageError e) {
      if (unfireable.add(s.name())) {
        LOG.log(System.Logger.Level.WARNING, "schedule " + s.name() + " cannot be fired", e);
      }
      return List.of();
    }
    Instant last = slots.isEmpty() ? s.lastSlot().orElse(null) : slots.get(slots.size() - 1);
    String lastKey = last == null ? null : Schedule.runKey(s.name(), last);
    try (PreparedStatement ps = c.prepareStatement(sql.advance)) {
      times.setNullable(ps, 1, next);
      times.setNullable(ps, 2, last == null ? null : last.toEpochMilli());
      ps.setString(3, lastKey);
      times.set(ps, 4, now.toEpochMilli());
      ps.setString(5, s.name());
      times.set(ps, 6, due.toEpochMilli());
      if (ps.executeUpdate() != 1) {
        return List.of(); // another instance fired this slot first
      }
    }
    List<SendResult> sent = new ArrayList<>(slots.size());
    for (Instant slot : slots) {
      Message run = Message.of(s.queue(), Schedule.runKey(s.name(), slot), s.payload());
      SendResult result = queue.insertStored(c, run, s.payload().toString());
      if (result.status() == SendResult.Status.SENT) {
        fired.add(new OnceOnlyEvent.ScheduleFired(s.name(), s.queue(), slot));
      }
      sent.add(result);
    }
    return sent;
  }

  /** Publishes the runs a committed transaction sent. */
  void publish(List<OnceOnlyEvent.ScheduleFired> fired) {
    if (core.events().enabled()) {
      fired.forEach(core.events()::publish);
    }
  }

  /** Fixed delays whose last run has left the queue get their next run, {@code delay} from now. */
  private void release(Connection c, String queueName, Instant now) throws SQLException {
    List<Stored> waiting;
    try (PreparedStatement ps =
        c.prepareStatement(queueName == null ? sql.waiting : sql.waitingOfQueue)) {
      if (queueName != null) {
        ps.setString(1, queueName);
      }
      waiting = rows(ps);
    }
    for (Stored w : waiting) {
      ScheduleSpec.FixedDelay d = (ScheduleSpec.FixedDelay) w.schedule().spec();
      try (PreparedStatement ps = c.prepareStatement(sql.release)) {
        times.set(ps, 1, now.plus(d.delay()).toEpochMilli());
        times.set(ps, 2, now.toEpochMilli());
        ps.setString(3, w.schedule().name());
        ps.setString(4, w.lastKey());
        ps.executeUpdate();
      }
    }
  }
}
