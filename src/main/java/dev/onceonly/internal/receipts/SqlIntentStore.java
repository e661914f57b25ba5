package dev.onceonly.internal.receipts;

import dev.onceonly.Fingerprint;
import dev.onceonly.Intent;
import dev.onceonly.IntentKey;
import dev.onceonly.IntentStore;
import dev.onceonly.Registration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The {@link IntentStore} on SQL. */
public final class SqlIntentStore implements IntentStore {
  /** The largest batch a listing returns. */
  public static final int MAX_BATCH = 10_000;

  private final StoreContext core;

  /** Creates the store. */
  public SqlIntentStore(StoreContext core) {
    this.core = core;
  }

  @Override
  public Registration register(IntentKey key, String operation, Object arguments) {
    RequestPreparer.Prepared request = core.requests().prepare(key, operation, arguments);
    String traceparent = core.traceparent();
    return core.database().writeOrJoin(c -> register(c, request, traceparent));
  }

  @Override
  public Registration register(
      Connection transaction, IntentKey key, String operation, Object arguments) {
    Objects.requireNonNull(transaction, "transaction");
    RequestPreparer.Prepared request = core.requests().prepare(key, operation, arguments);
    String traceparent = core.traceparent();
    return core.database().join(transaction, c -> register(c, request, traceparent));
  }

  private Registration register(Connection c, RequestPreparer.Prepared request, String traceparent)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(core.statements().insertIntent)) {
      ps.setString(1, request.key().scope());
      ps.setString(2, request.key().key());
      ps.setString(3, request.operation());
      ps.setString(4, request.fingerprint().toString());
      ps.setString(5, request.canonicalArguments());
      core.times().set(ps, 6, core.clock().millis());
      ps.setString(7, traceparent);
      if (ps.executeUpdate() == 1) {
        return new Registration.Registered(request.key(), request.fingerprint());
      }
    }
    Fingerprint stored = fingerprintOf(c, request.key());
    if (stored.equals(request.fingerprint())) {
      return new Registration.AlreadyRegistered(request.key(), request.fingerprint());
    }
    return new Registration.Conflict(request.key(), request.fingerprint(), stored);
  }

  /** Returns the registered fingerprint of a key, or null. */
  Fingerprint registeredFingerprint(Connection c, IntentKey key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(core.statements().selectIntent)) {
      ps.setString(1, key.scope());
      ps.setString(2, key.key());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Fingerprint.parse(rs.getString(2)) : null;
      }
    }
  }

  private Fingerprint fingerprintOf(Connection c, IntentKey key) throws SQLException {
    Fingerprint stored = registeredFingerprint(c, key);
    if (stored == null) {
      throw new SQLException("intent " + key + " vanished during registration");
    }
    return stored;
  }

  @Override
  public Optional<Intent> find(IntentKey key) {
    core.requests().checkKey(key);
    return core.database().read(c -> Optional.ofNullable(select(c, key)));
  }

  private Intent select(Connection c, IntentKey key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(core.statements().selectIntent)) {
      ps.setString(1, key.scope());
      ps.setString(2, key.key());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new Intent(
            key,
            rs.getString(1),
            Fingerprint.parse(rs.getString(2)),
            core.readTree(rs.getString(3)),
            core.times().instant(rs, 4),
            rs.getString(5));
      }
    }
  }

  @Override
  public List<Intent> pending(int limit) {
    return page("", "", limit);
  }

  @Override
  public List<Intent> pendingAfter(IntentKey after, int limit) {
    Objects.requireNonNull(after, "after");
    return page(after.scope(), after.key(), limit);
  }

  private List<Intent> page(String scope, String key, int limit) {
    checkLimit(limit);
    return core.database().read(c -> page(c, scope, key, limit));
  }

  private List<Intent> page(Connection c, String scope, String key, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(core.statements().pendingIntents)) {
      ps.setString(1, scope);
      ps.setString(2, scope);
      ps.setString(3, key);
      ps.setInt(4, limit);
      List<Intent> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new Intent(
                  IntentKey.of(rs.getString(1), rs.getString(2)),
                  rs.getString(3),
                  Fingerprint.parse(rs.getString(4)),
                  core.readTree(rs.getString(5)),
                  core.times().instant(rs, 6),
                  rs.getString(7)));
        }
      }
      return out;
    }
  }

  public static void checkLimit(int limit) {
    if (limit <= 0 || limit > MAX_BATCH) {
      throw new IllegalArgumentException("limit must be between 1 and " + MAX_BATCH);
    }
  }
}
