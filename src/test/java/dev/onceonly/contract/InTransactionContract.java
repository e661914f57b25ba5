package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.onceonly.ConnectionMisuseException;
import dev.onceonly.IntentKey;
import dev.onceonly.Outcome;
import dev.onceonly.queue.Message;
import dev.onceonly.queue.SendConflictException;
import dev.onceonly.queue.SendResult;
import dev.onceonly.sql.Dialect;
import dev.onceonly.testing.Race;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract of {@link dev.onceonly.OnceOnly#inTransaction} and {@link
 * dev.onceonly.OnceOnly#useTransaction}: the caller's own writes, its sends and its joined receipts
 * steps commit together on the library's writer, or none of them does. Rows are read back through a
 * fresh connection after reopening.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDialect")
public class InTransactionContract extends QueueContractSupport {
  static final String TASKS = "user-tasks";

  /** The caller's own exception, which must reach it unwrapped. */
  static final class SignupRefused extends Exception {
    private static final long serialVersionUID = 1L;

    SignupRefused(String why) {
      super(why);
    }
  }

  @BeforeEach
  void usersTable() {
    db.exec("CREATE TABLE users (user_id VARCHAR(20) PRIMARY KEY, user_name VARCHAR(100))");
  }

  static void insertUser(Connection c, String id, String name) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO users (user_id, user_name) VALUES (?, ?)")) {
      ps.setString(1, id);
      ps.setString(2, name);
      ps.executeUpdate();
    }
  }

  static Message welcome(String id) {
    return Message.of(TASKS, "welcome-" + id, Map.of("type", "welcome", "user", id));
  }

  @Test
  void theUsersRowItsMessageAndAJoinedReceiptCommitTogether() throws Exception {
    String answer =
        once.inTransaction(
            tx -> {
              insertUser(tx, "124", "New User");
              assertThat(once.queue().send(tx, welcome("124")).status())
                  .isEqualTo(SendResult.Status.SENT);
              Outcome<String> step = recordEffect(tx, "bonus-124", "signup");
              assertThat(step).isInstanceOf(Outcome.Created.class);
              return "user 124";
            });
    assertThat(answer).isEqualTo("user 124");

    reopen();
    assertThat(db.strings("SELECT user_name FROM users")).containsExactly("New User");
    assertThat(db.strings("SELECT message_key FROM onceonly_messages WHERE queue = ?", TASKS))
        .containsExactly("welcome-124");
    assertThat(db.strings("SELECT holder FROM effects WHERE message_key = ?", "bonus-124"))
        .containsExactly("signup");
    assertThat(once.receipts().find(IntentKey.of("effects", "bonus-124"))).isPresent();
  }

  @Test
  void aFailingWorkLeavesNeitherRowNorMessageAndItsOwnExceptionPassesThrough() {
    SignupRefused refused = new SignupRefused("over quota");
    assertThatThrownBy(
            () ->
                once.useTransaction(
                    tx -> {
                      insertUser(tx, "125", "Trial User");
                      once.queue().send(tx, welcome("125")).orThrow();
                      recordEffect(tx, "bonus-125", "signup");
                      throw refused;
                    }))
        .isSameAs(refused);

    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM users")).isZero();
    assertThat(messages(TASKS)).isZero();
    assertThat(effects()).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts")).isZero();
  }

  @Test
  void aConflictingSendTurnedIntoAnExceptionRollsBackTheCallersRowToo() throws Exception {
    Message first = Message.of(TASKS, "welcome-126", Map.of("type", "welcome", "user", "first"));
    assertThat(once.queue().send(first).status()).isEqualTo(SendResult.Status.SENT);

    assertThatThrownBy(
            () ->
                once.useTransaction(
                    tx -> {
                      insertUser(tx, "126", "Second User");
                      once.queue().send(tx, welcome("126")).orThrow();
                    }))
        .isInstanceOf(SendConflictException.class);

    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM users")).isZero();
    assertThat(db.strings("SELECT payload FROM onceonly_messages WHERE queue = ?", TASKS))
        .singleElement()
        .asString()
        .contains("first");
  }

  @Test
  void theWorkCannotEndTheTransactionItself() {
    assertThatThrownBy(
            () ->
                once.useTransaction(
                    tx -> {
                      insertUser(tx, "127", "Eager User");
                      tx.commit();
                    }))
        .isInstanceOf(ConnectionMisuseException.class);
    assertThatThrownBy(
            () ->
                once.useTransaction(
                    tx -> {
                      insertUser(tx, "128", "Quiet User");
                      try {
                        tx.close();
                      } catch (ConnectionMisuseException swallowed) {
                        // refused, and remembered: the transaction still rolls back
                      }
                    }))
        .isInstanceOf(ConnectionMisuseException.class);

    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM users")).isZero();
  }

  @Test
  void aStepOfItsOwnTransactionFromInsideTheWorkIsRefused() {
    assertThatThrownBy(
            () ->
                once.useTransaction(
                    tx -> {
                      insertUser(tx, "129", "Nested User");
                      once.queue().send(welcome("129")); // not joined: a second transaction
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("inside an effect or unit of work");

    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM users")).isZero();
    assertThat(messages(TASKS)).isZero();
  }

  /**
   * Many threads behind a start gate, each signing users up with a send and a joined receipts step:
   * on SQLite they share group commits (a work may run on another caller's thread), on PostgreSQL
   * pooled connections. Every fifth work throws after its writes and must roll back alone: every
   * other row and message is there once, and none of the refused ones.
   */
  @Test
  void racingTransactionsEachCommitTheirRowAndMessageOnceAndAFailingOneAlone() throws Exception {
    int threads = 12;
    int each = 15;
    List<List<String>> refusedPerThread =
        Race.run(
            threads,
            t ->
                () -> {
                  List<String> refused = new ArrayList<>();
                  for (int i = 0; i < each; i++) {
                    String id = t + "-" + i;
                    boolean fails = (t * each + i) % 5 == 0;
                    try {
                      String done =
                          once.inTransaction(
                              tx -> {
                                insertUser(tx, id, "User " + id);
                                once.queue().send(tx, welcome(id)).orThrow();
                                recordEffect(tx, "bonus-" + id, "t" + t).resultOrThrow();
                                if (fails) {
                                  throw new SignupRefused(id);
                                }
                                return id;
                              });
                      assertThat(done).isEqualTo(id);
                    } catch (SignupRefused e) {
                      assertThat(e).hasMessage(id); // its own exception, not another caller's
                      refused.add(id);
                    }
                  }
                  return refused;
                });
    List<String> refused = refusedPerThread.stream().flatMap(List::stream).toList();
    long total = (long) threads * each;
    assertThat(refused).hasSize((int) (total / 5));
    long committed = total - refused.size();

    reopen();
    assertThat(db.count("SELECT COUNT(*) FROM users")).isEqualTo(committed);
    assertThat(db.count("SELECT COUNT(DISTINCT user_id) FROM users")).isEqualTo(committed);
    assertThat(messages(TASKS)).isEqualTo(committed);
    assertThat(
            db.count(
                "SELECT COUNT(*) FROM users u JOIN onceonly_messages m"
                    + " ON m.message_key = 'welcome-' || u.user_id"))
        .isEqualTo(committed);
    assertThat(effects()).isEqualTo(committed);
    assertThat(duplicatedEffects()).isZero();
    assertThat(db.count("SELECT COUNT(*) FROM onceonly_receipts")).isEqualTo(committed);
    for (String id : refused) {
      assertThat(db.count("SELECT COUNT(*) FROM users WHERE user_id = ?", id)).as(id).isZero();
    }
    assertThat(
            db.count(
                "SELECT COUNT(*) FROM onceonly_messages WHERE message_key = ?",
                "welcome-" + refused.get(0)))
        .isZero();
  }

  /**
   * Two works that lock the same two rows in opposite orders: the server aborts one with a deadlock
   * ({@code 40P01}), and that work runs again, as the Javadoc says it may; its first run was rolled
   * back, so each user's row and message are there once. PostgreSQL only: SQLite's one writer never
   * holds one row while waiting for another.
   */
  @Test
  void aWorkTheServerAbortsForADeadlockRunsAgainAndCommitsOnce() throws Exception {
    assumeTrue(db.dialect() == Dialect.POSTGRESQL, "SQLite: one writer at a time, no deadlock");
    db.exec(
        "CREATE TABLE counters (name VARCHAR(10) PRIMARY KEY, n BIGINT NOT NULL)",
        "INSERT INTO counters (name, n) VALUES ('a', 0), ('b', 0)");
    CyclicBarrier bothHoldTheirFirstRow = new CyclicBarrier(2);
    AtomicInteger runs = new AtomicInteger();
    List<String> ids =
        Race.run(
            2,
            t ->
                () -> {
                  String first = t == 0 ? "a" : "b";
                  String second = t == 0 ? "b" : "a";
                  AtomicInteger mine = new AtomicInteger();
                  return once.inTransaction(
                      tx -> {
                        runs.incrementAndGet();
                        String id = "dl-" + t;
                        insertUser(tx, id, "User " + id);
                        once.queue().send(tx, welcome(id)).orThrow();
                        bump(tx, first);
                        if (mine.incrementAndGet() == 1) {
                          await(bothHoldTheirFirstRow); // only the first run meets the other
                        }
                        bump(tx, second);
                        return id;
                      });
                });
    assertThat(ids).containsExactly("dl-0", "dl-1");
    // At least one of the two ran again. A full run once counted 4 runs (a second run aborted and
    // run again; which error aborted it was not recorded): each aborted run is run again, and the
    // rows below must still be there once.
    assertThat(runs.get())
        .as("the works' runs: two, and one more per abort")
        .isGreaterThanOrEqualTo(3);

    reopen();
    assertThat(db.strings("SELECT user_id FROM users ORDER BY user_id"))
        .containsExactly("dl-0", "dl-1");
    assertThat(messages(TASKS)).isEqualTo(2);
    assertThat(db.strings("SELECT n FROM counters ORDER BY name")).containsExactly("2", "2");
  }

  private static void bump(Connection tx, String name) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("UPDATE counters SET n = n + 1 WHERE name = ?")) {
      ps.setString(1, name);
      ps.executeUpdate();
    }
  }

  private static void await(CyclicBarrier barrier) throws SQLException {
    try {
      barrier.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new SQLException("the other work did not arrive", e);
    }
  }
}
