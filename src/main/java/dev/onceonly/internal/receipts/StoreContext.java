package dev.onceonly.internal.receipts;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.IntentKey;
import dev.onceonly.TraceContext;
import dev.onceonly.events.Events;
import dev.onceonly.internal.db.Database;
import dev.onceonly.internal.dialect.InstantColumns;
import dev.onceonly.internal.dialect.SqlDialect;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * What the stores of one OnceOnly instance share: the database, its statements, the request checks,
 * the clock, the mapper and the retention settings.
 *
 * @param database runs transactions
 * @param requests validates and canonicalizes requests
 * @param clock the time source
 * @param mapper reads and writes results
 * @param resultRetention how long a result is returned
 * @param tombstoneRetention how much longer a fingerprint is kept after that
 * @param rejectionReasonChars bound on a rejection's reason
 * @param rejectionBodyBytes bound on a rejection's body excerpt
 * @param attemptErrorsKept how many failed attempts of a message keep their error, 0 for none
 * @param sql the statements, built for the table prefix
 * @param events where outcomes are published, after their transaction
 * @param traces the trace context recorded with each sent message
 */
public record StoreContext(
    Database database,
    RequestPreparer requests,
    InstantSource clock,
    ObjectMapper mapper,
    Duration resultRetention,
    Duration tombstoneRetention,
    int rejectionReasonChars,
    int rejectionBodyBytes,
    int attemptErrorsKept,
    Sql sql,
    Events events,
    TraceContext traces) {

  /** Bounds keys by what the dialect's key columns hold. */
  public StoreContext {
    requests = requests.limitedTo(database.sql().maxKeyChars());
  }

  /** The statements, opaque outside this package. */
  public static final class Sql {
    private final String prefix;
    private volatile Statements statements;

    /**
     * Keeps a validated prefix; the statements are built on first use, for the dialect of the
     * instance's database. They are the same in every dialect but for the few the dialect seam
     * writes: the schemas declare text keys in a bytewise collation ({@code COLLATE "C"} on
     * PostgreSQL, {@code utf8mb4_nopad_bin} on MariaDB), so comparisons and orderings are bytewise
     * everywhere, as on SQLite.
     */
    public Sql(String prefix) {
      this.prefix = prefix;
      this.lockSpace = (prefix + "keys").hashCode();
    }

    private final int lockSpace;

    Statements statements(SqlDialect dialect) {
      Statements s = statements;
      if (s == null) {
        s = new Statements(prefix, dialect);
        statements = s;
      }
      return s;
    }
  }

  Statements statements() {
    return sql.statements(database.sql());
  }

  /** {@return the validated table prefix} */
  public String prefix() {
    return sql.prefix;
  }

  public InstantColumns times() {
    return database.times();
  }

  /**
   * Serializes the write steps on one key of one table until the transaction ends; on SQLite a
   * no-op (its {@code BEGIN IMMEDIATE} already admits one writer at a time).
   *
   * <p>Why a lock and which one, on PostgreSQL: write transactions run at READ COMMITTED (the
   * server's default), where each statement sees what was committed before it started. A
   * check-then-effect step reads ("is there a receipt?"), runs the effect and writes; two
   * transactions on the same key could both read "none". SERIALIZABLE would catch that only at
   * commit, after both effects ran, and the loser would have to run its effect again. A row lock
   * ({@code SELECT ... FOR UPDATE}) needs a row, and the first step on a key has none. So each step
   * first takes a transaction-scoped advisory lock on (table, scope, key): the second step waits
   * for the first to commit or roll back, and its next statement, with a fresh READ COMMITTED
   * snapshot, sees the receipt the first one wrote. The lock is released by COMMIT or ROLLBACK and
   * holds no session state, so it works through PgBouncer's transaction pooling. The lock's name
   * joins scope and key with NUL, which neither may hold ({@link Identifiers}), so two keys never
   * share a name; the lock id is a 32-bit hash of it, and a collision of hashes only makes two
   * unrelated keys wait for each other, never lets one key's steps run together.
   */
  public void lockKey(Connection c, String table, IntentKey key) throws SQLException {
    if (!database.sql().locksKeys()) {
      return; // before building the lock's name: SQLite's hot path allocates nothing here
    }
    database.lockKey(
        c, sql.prefix, sql.lockSpace + table.hashCode(), key.scope() + '\0' + key.key());
  }

  public JsonNode readTree(String json) {
    try {
      return mapper.readTree(json);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("stored JSON cannot be read back", e);
    }
  }

  /**
   * Reads the calling thread's trace context, before the transaction that records it with a message
   * or an intent. A value that is not a W3C traceparent of printable ASCII within {@link
   * TraceContext#MAX_CHARS} is not stored, and a supplier that throws is logged once: tracing never
   * fails a send or a registration.
   *
   * @return the traceparent to store, or null
   */
  public String traceparent() {
    String value;
    try {
      value = traces.traceparent();
    } catch (RuntimeException e) {
      if (!TRACE_FAILURE_LOGGED.getAndSet(true)) {
        System.getLogger(StoreContext.class.getName())
            .log(
                System.Logger.Level.WARNING,
                "the trace context supplier threw; messages and intents are stored without a"
                    + " traceparent (logged once)",
                e);
      }
      return null;
    }
    return value != null && TRACEPARENT.matcher(value).matches() ? value : null;
  }

  private static final Pattern TRACEPARENT =
      Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}[\\x21-\\x7e]{0,60}");
  private static final AtomicBoolean TRACE_FAILURE_LOGGED = new AtomicBoolean();
}
