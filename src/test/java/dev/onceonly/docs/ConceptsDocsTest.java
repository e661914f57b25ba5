package dev.onceonly.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.Canonicalizer;
import dev.onceonly.Effect;
import dev.onceonly.IntentKey;
import dev.onceonly.IntentNotRegisteredException;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.OnceOnly;
import dev.onceonly.OperationRules;
import dev.onceonly.Outcome;
import dev.onceonly.Registration;
import dev.onceonly.queue.Message;
import dev.onceonly.testing.Db;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The java blocks of docs/concepts.md and docs/canonicalization.md, as they are written there, run
 * on a SQLite file; each test counts the rows they leave through a fresh connection.
 */
class ConceptsDocsTest extends SqliteDocsTest {
  @Test
  void aRefundKeyMustMatchItsPatternNameItsOrderAndBeRegistered() throws Exception {
    try (OnceOnly once =
        // ---- docs/concepts.md, rules per operation ----
        OnceOnly.builder()
            .operation(
                "refund",
                OperationRules.builder()
                    .keyPattern("rf-[0-9]{4}") // instead of keyPattern(...)
                    .validator(
                        (key, args) -> { // sees the key, not only the arguments
                          if (!key.key().equals("rf-" + args.path("order").asText())) {
                            throw new InvalidRequestException(
                                "arguments", "not the order of " + key.key());
                          }
                        })
                    .requireRegisteredIntent() // see "Registered intents"
                    .build())
            // ---- end ----
            .sqlite(file())
            .build()) {
      Map<String, String> order = Map.of("order", "1234");
      assertThatThrownBy(() -> refund(once, "refund-1234", order))
          .isInstanceOf(InvalidRequestException.class);
      assertThatThrownBy(() -> refund(once, "rf-1234", Map.of("order", "9999")))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("not the order of rf-1234");
      assertThatThrownBy(() -> refund(once, "rf-1234", order))
          .isInstanceOf(IntentNotRegisteredException.class);
      assertThat(rows("SELECT COUNT(*) FROM onceonly_receipts")).isZero();

      once.intents().register(IntentKey.of("u-1", "rf-1234"), "refund", order);
      assertThat(refund(once, "rf-1234", order)).isInstanceOf(Outcome.Created.class);
    }
    assertThat(rows("SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = 'rf-1234'"))
        .isEqualTo(1);
  }

  private static Outcome<String> refund(OnceOnly once, String key, Object args) {
    return once.receipts()
        .execute(IntentKey.of("u-1", key), "refund", args, String.class, tx -> "refunded");
  }

  @Test
  void aRegistrationIsNewThenAlreadyRegisteredThenAConflict() {
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      IntentKey key = IntentKey.of("u-1", "report-7");
      Map<String, Object> arguments = Map.of("samples", java.util.List.of(10, 20, 30));
      // ---- docs/concepts.md, registered intents ----
      Registration r = once.intents().register(key, "make_report", arguments);
      // Registered: new; AlreadyRegistered: same key, same fingerprint; Conflict: other content
      // ---- end ----
      assertThat(r).isInstanceOf(Registration.Registered.class);
      assertThat(once.intents().register(key, "make_report", arguments))
          .isInstanceOf(Registration.AlreadyRegistered.class);
      assertThat(once.intents().register(key, "make_report", Map.of("samples", 1)))
          .isInstanceOf(Registration.Conflict.class);
    }
    assertThat(rows("SELECT COUNT(*) FROM onceonly_intents WHERE intent_key = 'report-7'"))
        .isEqualTo(1);
  }

  @Test
  void anOperationThatRequiresARegisteredIntentRunsNothingWithoutOne() {
    try (OnceOnly once =
        // ---- docs/concepts.md, requireRegisteredIntent ----
        OnceOnly.builder()
            .operation("refund", OperationRules.builder().requireRegisteredIntent().build())
            // ---- end ----
            .sqlite(file())
            .build()) {
      assertThatThrownBy(() -> refund(once, "r-1", Map.of("order", "1")))
          .isInstanceOf(IntentNotRegisteredException.class);
    }
    assertThat(rows("SELECT COUNT(*) FROM onceonly_receipts")).isZero();
  }

  @Test
  void aRejectionIsRecordedOnce() {
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      String deliveryId = "1700000000000-0";
      String body = "{\"order\": ";
      String reason = "invalid JSON";
      // ---- docs/concepts.md, rejections ----
      boolean recorded = once.rejections().record(deliveryId, body, reason);
      // ---- end ----
      assertThat(recorded).isTrue();
      assertThat(once.rejections().record(deliveryId, body, reason)).isFalse();
    }
    assertThat(rows("SELECT COUNT(*) FROM onceonly_rejections")).isEqualTo(1);
  }

  record Ticket(long id, String subject) {}

  @Test
  void aStepJoinsTheCallersTransactionAndCommitsWithIt() throws SQLException {
    Db.exec(file(), "CREATE TABLE tickets (id INTEGER PRIMARY KEY, subject TEXT NOT NULL)");
    try (OnceOnly once = OnceOnly.openSqlite(file());
        Connection connection = Db.open(file());
        Statement s = connection.createStatement()) {
      IntentKey key = IntentKey.of("u-1", "op-17");
      Map<String, String> arguments = Map.of("subject", "API timeout");
      Effect<Ticket, SQLException> effect = tx -> insertTicket(tx, "API timeout");
      s.execute("BEGIN IMMEDIATE");
      // ---- docs/concepts.md, joining your own transaction ----
      Outcome<Ticket> outcome =
          once.receipts()
              .execute(connection, key, "create_ticket", arguments, Ticket.class, effect);
      // ---- end ----
      assertThat(rows("SELECT COUNT(*) FROM tickets")).isZero(); // not committed yet
      s.execute("COMMIT");
      assertThat(outcome).isInstanceOf(Outcome.Created.class);
    }
    assertThat(rows("SELECT COUNT(*) FROM tickets")).isEqualTo(1);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = 'op-17'"))
        .isEqualTo(1);
  }

  private static Ticket insertTicket(Connection tx, String subject) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO tickets (subject) VALUES (?) RETURNING id")) {
      ps.setString(1, subject);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Ticket(rs.getLong(1), subject);
      }
    }
  }

  record Bonus(long user) {}

  /** The application's own users table, written through the connection it is given. */
  static final class Users {
    long insert(Connection tx, String name) throws SQLException {
      try (PreparedStatement ps =
          tx.prepareStatement("INSERT INTO users (name) VALUES (?) RETURNING rowid")) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    }
  }

  /** The application's own bonuses table, written through the connection it is given. */
  static final class Bonuses {
    Bonus insert(Connection tx, long user) throws SQLException {
      try (PreparedStatement ps = tx.prepareStatement("INSERT INTO bonuses (user_id) VALUES (?)")) {
        ps.setLong(1, user);
        ps.executeUpdate();
        return new Bonus(user);
      }
    }
  }

  @Test
  void theStoresOwnTransactionCommitsTheUserTheMessageAndTheBonusTogether() throws SQLException {
    Db.exec(file(), "CREATE TABLE users (name TEXT NOT NULL)");
    Db.exec(file(), "CREATE TABLE bonuses (user_id INTEGER NOT NULL)");
    Users users = new Users();
    Bonuses bonuses = new Bonuses();
    String name = "Ada";
    IntentKey key = IntentKey.of("signup", "ada");
    Map<String, Integer> args = Map.of("points", 100);
    try (OnceOnly once = OnceOnly.openSqlite(file())) {
      // ---- docs/concepts.md, the store's own transaction ----
      long user =
          once.inTransaction(
              tx -> {
                long id = users.insert(tx, name); // your JDBC code, on tx
                once.queue()
                    .send(tx, Message.of("user-tasks", "welcome-" + id, Map.of("user", id)))
                    .orThrow();
                once.receipts()
                    .execute(tx, key, "grant_bonus", args, Bonus.class, c -> bonuses.insert(c, id));
                return id;
              });
      // ---- end ----
      assertThat(user).isEqualTo(1);
    }
    assertThat(rows("SELECT COUNT(*) FROM users")).isEqualTo(1);
    assertThat(rows("SELECT COUNT(*) FROM bonuses WHERE user_id = 1")).isEqualTo(1);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_messages WHERE message_key = 'welcome-1'"))
        .isEqualTo(1);
    assertThat(rows("SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = 'ada'"))
        .isEqualTo(1);
  }

  @Test
  void theCanonicalFormAndTheFingerprintOfCanonicalizationMd() {
    // ---- docs/canonicalization.md ----
    Canonicalizer jcs = Canonicalizer.defaults();
    jcs.canonicalString("{ \"b\": 1.0, \"a\": [1e21, \"\\u00e9\"] }"); // {"a":[1e+21,"é"],"b":1}
    jcs.fingerprint("make_report", "{\"muestras\": [10, 20, 30]}");
    // jcs-sha256:c65520eaac1a03d4f64208b8bfab46257b866de617b6c88ee4ecfc8c80b3ced2
    // ---- end ----
    assertThat(jcs.canonicalString("{ \"b\": 1.0, \"a\": [1e21, \"\\u00e9\"] }"))
        .isEqualTo("{\"a\":[1e+21,\"é\"],\"b\":1}");
    assertThat(jcs.fingerprint("make_report", "{\"muestras\": [10, 20, 30]}").toString())
        .isEqualTo("jcs-sha256:c65520eaac1a03d4f64208b8bfab46257b866de617b6c88ee4ecfc8c80b3ced2");
  }
}
