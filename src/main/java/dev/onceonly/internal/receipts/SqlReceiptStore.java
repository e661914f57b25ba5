package dev.onceonly.internal.receipts;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.onceonly.ConnectionLostException;
import dev.onceonly.Effect;
import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import dev.onceonly.IntentNotRegisteredException;
import dev.onceonly.Outcome;
import dev.onceonly.Receipt;
import dev.onceonly.ReceiptStore;
import dev.onceonly.RetryTransactionException;
import dev.onceonly.StoreException;
import dev.onceonly.UnstorableResultException;
import dev.onceonly.events.OnceOnlyEvent;
import dev.onceonly.internal.db.EffectConnection;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.jcs.Jcs;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The {@link ReceiptStore} on SQL. */
public final class SqlReceiptStore implements ReceiptStore {
  private final StoreContext core;

  /** Creates the store. */
  public SqlReceiptStore(StoreContext core) {
    this.core = core;
  }

  /** Carries an effect's own exception through the transaction runner, unwrapped after. */
  private static final class EffectFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    EffectFailed(Exception cause) {
      super(cause.getMessage(), cause, true, false);
    }
  }

  @Override
  public <T, X extends Exception> Outcome<T> execute(
      IntentKey key, String operation, Object arguments, Class<T> resultType, Effect<T, X> effect)
      throws X {
    RequestPreparer.Prepared request = core.requests().prepare(key, operation, arguments);
    Objects.requireNonNull(resultType, "resultType");
    Objects.requireNonNull(effect, "effect");
    long started = core.events().enabled() ? System.nanoTime() : 0;
    Outcome<T> outcome = null;
    try {
      Outcome<T> settled = settledWithoutWriting(request, resultType);
      outcome =
          settled != null
              ? settled
              : core.database().writeOrJoin(c -> step(c, request, resultType, effect));
      return outcome;
    } catch (EffectFailed e) {
      throw this.<X>unwrap(e);
    } catch (ConnectionLostException e) {
      outcome = afterUnansweredCommit(e, request, resultType);
      return outcome;
    } finally {
      if (started != 0) {
        published(request, outcome, started);
      }
    }
  }

  /** Publishes a step's outcome (null: it threw), after its transaction or when it returned. */
  private void published(RequestPreparer.Prepared request, Outcome<?> outcome, long started) {
    core.events()
        .publish(
            new OnceOnlyEvent.StepFinished(
                request.operation(),
                outcome == null ? "failed" : kind(outcome),
                core.events().scope(request.key().scope()),
                Duration.ofNanos(System.nanoTime() - started)));
  }

  private static String kind(Outcome<?> outcome) {
    if (outcome instanceof Outcome.Created) {
      return "created";
    } else if (outcome instanceof Outcome.Repeated) {
      return "repeated";
    } else if (outcome instanceof Outcome.Conflict) {
      return "conflict";
    }
    return "expired";
  }

  @Override
  public <T, X extends Exception> Outcome<T> execute(
      Connection transaction,
      IntentKey key,
      String operation,
      Object arguments,
      Class<T> resultType,
      Effect<T, X> effect)
      throws X {
    Objects.requireNonNull(transaction, "transaction");
    RequestPreparer.Prepared request = core.requests().prepare(key, operation, arguments);
    Objects.requireNonNull(resultType, "resultType");
    Objects.requireNonNull(effect, "effect");
    long started = core.events().enabled() ? System.nanoTime() : 0;
    Outcome<T> outcome = null;
    try {
      outcome = core.database().join(transaction, c -> step(c, request, resultType, effect));
      return outcome;
    } catch (EffectFailed e) {
      throw this.<X>unwrap(e);
    } finally {
      if (started != 0) {
        published(request, outcome, started);
      }
    }
  }

  /**
   * Answers from a committed receipt without taking the write lock, or returns null. A committed
   * receipt never changes its fingerprint or result until it expires, so a read is enough to answer
   * a repetition, a conflict or an expiry: under contention (a retry storm) repeated keys stay off
   * the single writer and off other processes' file lock. Only tried while writes are queueing,
   * where the caller would wait anyway; a lone caller goes straight to the write step, which looks
   * again under the lock.
   */
  private <T> Outcome<T> settledWithoutWriting(
      RequestPreparer.Prepared request, Class<T> resultType) {
    if (!core.database().writesContended()) {
      return null;
    }
    Instant now = Instant.ofEpochMilli(core.clock().millis());
    Receipt existing = core.database().read(c -> lookup(c, request.key())).receipt();
    if (existing == null || !existing.forgetAt().isAfter(now)) {
      return null;
    }
    return answer(existing, request, resultType, now);
  }

  /**
   * After a lost connection: when the commit was sent and got no answer, looks the receipt up again
   * (on a new connection, so after a failover on the new primary) and answers from it if it is
   * there; otherwise, or when the database cannot be read either, the failure stands, and calling
   * the same step again is safe (it takes the key's lock and looks again before the effect runs).
   */
  private <T> Outcome<T> afterUnansweredCommit(
      ConnectionLostException e, RequestPreparer.Prepared request, Class<T> resultType) {
    if (!e.commitUnknown()) {
      throw e;
    }
    Instant now = Instant.ofEpochMilli(core.clock().millis());
    Receipt existing;
    try {
      existing = core.database().read(c -> lookup(c, request.key())).receipt();
    } catch (StoreException unreadable) {
      e.addSuppressed(unreadable);
      throw e;
    }
    if (existing == null || !existing.forgetAt().isAfter(now)) {
      throw e;
    }
    return answer(existing, request, resultType, now);
  }

  @SuppressWarnings("unchecked")
  private <X extends Exception> X unwrap(EffectFailed e) {
    Throwable cause = e.getCause();
    for (Throwable s : e.getSuppressed()) {
      cause.addSuppressed(s); // a rollback failure, if any
    }
    return (X) cause;
  }

  private <T, X extends Exception> Outcome<T> step(
      Connection c, RequestPreparer.Prepared request, Class<T> resultType, Effect<T, X> effect)
      throws SQLException {
    // Receipts keep epoch millis: a finer "now" would make Created and Repeated disagree.
    Instant now = Instant.ofEpochMilli(core.clock().millis());
    core.lockKey(c, "receipts", request.key());
    Lookup found = lookup(c, request.key());
    Receipt existing = found.receipt();
    if (existing != null && existing.forgetAt().isAfter(now)) {
      return answer(existing, request, resultType, now);
    }
    Fingerprint registered = found.registered();
    if (registered != null && !registered.equals(request.fingerprint())) {
      return new Outcome.Conflict<>(request.key(), registered, request.fingerprint());
    }
    if (registered == null && core.requests().requiresRegisteredIntent(request.operation())) {
      // Read in this transaction, under the key's lock: a registration cannot slip in between.
      throw new IntentNotRegisteredException(request.key(), request.operation());
    }
    if (existing != null) {
      delete(c, request.key()); // past every retention: the key may run again
    }
    boolean claimFirst = found.snapshot() && !core.database().ownsTransaction();
    if (claimFirst) {
      Outcome<T> late = claim(c, request, resultType, now);
      if (late != null) {
        return late;
      }
    }
    T result = run(effect, c);
    String json = serialize(result, resultType);
    checkReadsBack(result, json, resultType);
    checkFits(json, resultType);
    if (claimFirst) {
      fill(c, request.key(), json);
    } else {
      insert(c, request, json, now);
    }
    return new Outcome.Created<>(request.key(), request.fingerprint(), result, now);
  }

  /**
   * In a caller's transaction that reads from an older snapshot (see {@link
   * dev.onceonly.internal.dialect.SqlDialect#snapshotReads}), the lookup may have missed a receipt
   * that a competitor committed after the snapshot was taken, even though this step waited for the
   * competitor's key lock. So the receipt's row is written, without a result, before the effect
   * runs; the unique key sees the competitor's row whatever the snapshot. Returns null when the row
   * is this step's; otherwise answers from the competitor's receipt read with a locking read (the
   * latest committed version, on InnoDB), or throws {@link RetryTransactionException} where the
   * server refuses a write past the snapshot (PostgreSQL) or the row cannot be read. Either way the
   * effect has not run.
   */
  private <T> Outcome<T> claim(
      Connection c, RequestPreparer.Prepared request, Class<T> resultType, Instant now)
      throws SQLException {
    try {
      if (insert(c, core.statements().claimReceipt, request, null, now) == 1) {
        return null;
      }
      Receipt latest = select(c, core.statements().latestReceipt, request.key());
      if (latest != null) {
        return answer(latest, request, resultType, now);
      }
      throw new SQLException("the receipt's row is there but cannot be read", "40001");
    } catch (SQLException e) {
      if (!core.database().sql().snapshotTooOld(e)) {
        throw e;
      }
      throw new RetryTransactionException(
          "the caller's transaction reads from a snapshot taken before another step on "
              + request.key()
              + " committed its receipt, and cannot see it: the effect did not run; roll the"
              + " transaction back and run it again (it will be answered from the receipt)",
          core.database().dialect().id(),
          e);
    }
  }

  private void fill(Connection c, IntentKey key, String json) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(core.statements().fillReceipt)) {
      ps.setString(1, json);
      ps.setString(2, key.scope());
      ps.setString(3, key.key());
      ps.executeUpdate();
    }
  }

  private <T> Outcome<T> answer(
      Receipt existing, RequestPreparer.Prepared request, Class<T> resultType, Instant now) {
    if (!existing.fingerprint().equals(request.fingerprint())) {
      return new Outcome.Conflict<>(request.key(), existing.fingerprint(), request.fingerprint());
    }
    if (existing.resultJson() == null || !existing.expiresAt().isAfter(now)) {
      return new Outcome.Expired<>(request.key(), existing.fingerprint(), existing.expiresAt());
    }
    return new Outcome.Repeated<>(
        request.key(),
        existing.fingerprint(),
        deserialize(existing.resultJson(), resultType),
        existing.createdAt());
  }

  /**
   * Runs the effect on the step's connection lent through {@link
   * dev.onceonly.internal.db.EffectConnection}, so that it cannot commit, roll back or change the
   * session; a refusal it caught still fails the step.
   */
  private static <T, X extends Exception> T run(Effect<T, X> effect, Connection c) {
    EffectConnection lent = EffectConnection.lend(c);
    try {
      T result = effect.apply(lent);
      lent.check();
      return result;
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new EffectFailed(e);
    }
  }

  private String serialize(Object result, Class<?> resultType) {
    String json;
    try {
      json = core.mapper().writeValueAsString(result);
    } catch (JsonProcessingException e) {
      throw new UnstorableResultException(
          resultType, "Jackson cannot write it as JSON: " + e.getOriginalMessage(), e);
    } catch (StackOverflowError e) {
      throw new UnstorableResultException(
          resultType, "it refers to itself (a cycle) or is nested too deep", null);
    }
    // Jackson writes an unpaired surrogate raw, and its UTF-8 form would come back as "?":
    // a repeated request would then get another result than the first one.
    if (Jcs.loneSurrogate(json) >= 0) {
      throw new UnstorableResultException(resultType, "it holds an unpaired surrogate", null);
    }
    return json;
  }

  /**
   * Refuses a result that a repeated request would not get back: it is read back from {@code json}
   * as {@code resultType} and compared (see {@link RoundTrip}) before anything commits. Strings,
   * integers and booleans of exactly the result type skip the read: their JSON is exact.
   */
  private <T> void checkReadsBack(T result, String json, Class<T> resultType) {
    if (RoundTrip.exact(result, resultType)) {
      return;
    }
    T back;
    try {
      back = core.mapper().readValue(json, resultType);
    } catch (JsonProcessingException e) {
      throw new UnstorableResultException(
          resultType, "Jackson cannot read it back: " + e.getOriginalMessage(), e);
    }
    boolean same;
    try {
      same = RoundTrip.same(result, back, this::rewrite);
    } catch (RoundTrip.FieldsUnreadable e) {
      throw new UnstorableResultException(
          resultType,
          "a type in it declares no equals and its fields cannot be read to compare (open its"
              + " package to the dev.onceonly module, or declare equals): "
              + e.getMessage(),
          e);
    }
    if (!same) {
      throw new UnstorableResultException(
          resultType,
          "it does not read back equal to what the effect returned (a field Jackson skips or"
              + " cannot set?); stored as "
              + (json.length() > 200 ? json.substring(0, 200) + "..." : json),
          null);
    }
  }

  /**
   * Refuses a result whose statement the server would not take ({@code max_allowed_packet} on
   * MariaDB, read at open): the server would close the connection, reported as a lost one. The
   * statement's other values take at most {@value #STATEMENT_ROOM} bytes; the UTF-8 length is only
   * counted for a result that could come near the limit.
   */
  private void checkFits(String json, Class<?> resultType) {
    long limit = core.database().maxStatementBytes();
    if ((long) json.length() * 3 + STATEMENT_ROOM <= limit) {
      return;
    }
    long bytes = json.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (bytes + STATEMENT_ROOM > limit) {
      throw new UnstorableResultException(
          resultType,
          "its JSON is "
              + bytes
              + " bytes, and with the receipt's other values more than the "
              + limit
              + " bytes of one statement that the server takes (max_allowed_packet); raise"
              + " max_allowed_packet or return less",
          null);
    }
  }

  /** Room for a receipt's values other than its result, in bytes of a statement. */
  private static final int STATEMENT_ROOM = 8_192;

  private String rewrite(Object value) {
    try {
      return core.mapper().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      return "unwritable: " + e.getOriginalMessage();
    }
  }

  private <T> T deserialize(String json, Class<T> type) {
    try {
      return core.mapper().readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "the stored result cannot be read as " + type.getName() + ": " + e.getOriginalMessage(),
          e);
    }
  }

  private void insert(Connection c, RequestPreparer.Prepared request, String json, Instant now)
      throws SQLException {
    insert(c, core.statements().insertReceipt, request, json, now);
  }

  /** Inserts the receipt with {@code sql}, its result {@code json} (null: none yet). */
  private int insert(
      Connection c, String sql, RequestPreparer.Prepared request, String json, Instant now)
      throws SQLException {
    Instant expires = now.plus(core.resultRetention());
    Instant forget = expires.plus(core.tombstoneRetention());
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, request.key().scope());
      ps.setString(2, request.key().key());
      ps.setString(3, request.operation());
      ps.setString(4, request.fingerprint().toString());
      if (json == null) {
        ps.setNull(5, Types.VARCHAR);
      } else {
        ps.setString(5, json);
      }
      InstantColumns t = core.times();
      t.set(ps, 6, now.toEpochMilli());
      t.set(ps, 7, expires.toEpochMilli());
      t.set(ps, 8, forget.toEpochMilli());
      return ps.executeUpdate();
    }
  }

  private void delete(Connection c, IntentKey key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(core.statements().deleteReceipt)) {
      ps.setString(1, key.scope());
      ps.setString(2, key.key());
      ps.executeUpdate();
    }
  }

  /**
   * The receipt of a key (or null), the fingerprint of its registered intent (or null), and whether
   * the transaction may read from a snapshot older than the lookup.
   */
  private record Lookup(Receipt receipt, Fingerprint registered, boolean snapshot) {}

  /** Reads both in one statement: a step's only read. */
  private Lookup lookup(Connection c, IntentKey key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(core.statements().lookupStep)) {
      ps.setString(1, key.scope());
      ps.setString(2, key.key());
      ps.setString(3, key.scope());
      ps.setString(4, key.key());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        String intent = rs.getString(7);
        Fingerprint registered = intent == null ? null : Fingerprint.parse(intent);
        boolean snapshot = rs.getBoolean(8);
        String fingerprint = rs.getString(2);
        if (fingerprint == null) {
          return new Lookup(null, registered, snapshot);
        }
        Receipt receipt =
            new Receipt(
                key,
                rs.getString(1),
                Fingerprint.parse(fingerprint),
                rs.getString(3),
                core.times().instant(rs, 4),
                core.times().instant(rs, 5),
                core.times().instant(rs, 6));
        return new Lookup(receipt, registered, snapshot);
      }
    }
  }

  private Receipt select(Connection c, IntentKey key) throws SQLException {
    return select(c, core.statements().selectReceipt, key);
  }

  private Receipt select(Connection c, String sql, IntentKey key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key.scope());
      ps.setString(2, key.key());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new Receipt(
            key,
            rs.getString(1),
            Fingerprint.parse(rs.getString(2)),
            rs.getString(3),
            core.times().instant(rs, 4),
            core.times().instant(rs, 5),
            core.times().instant(rs, 6));
      }
    }
  }

  @Override
  public Optional<Receipt> find(IntentKey key) {
    core.requests().checkKey(key);
    return core.database().read(c -> Optional.ofNullable(select(c, key)));
  }

  @Override
  public PurgeResult purge(int limit) {
    SqlIntentStore.checkLimit(limit);
    return core.database().write(c -> purge(c, limit));
  }

  private PurgeResult purge(Connection c, int limit) throws SQLException {
    long now = core.clock().millis();
    List<IntentKey> forgotten = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(core.statements().selectForgotten)) {
      core.times().set(ps, 1, now);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          forgotten.add(IntentKey.of(rs.getString(1), rs.getString(2)));
        }
      }
    }
    for (IntentKey key : forgotten) {
      delete(c, key);
      deleteIntent(c, key); // or the reconciler would publish it again
    }
    int tombstoned = 0;
    if (forgotten.size() < limit) {
      try (PreparedStatement ps = c.prepareStatement(core.statements().tombstoneExpired)) {
        core.times().set(ps, 1, now);
        core.times().set(ps, 2, now);
        ps.setInt(3, limit - forgotten.size());
        tombstoned = ps.executeUpdate();
      }
    }
    return new PurgeResult(tombstoned, forgotten.size());
  }

  private void deleteIntent(Connection c, IntentKey key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(core.statements().deleteIntent)) {
      ps.setString(1, key.scope());
      ps.setString(2, key.key());
      ps.executeUpdate();
    }
  }
}
