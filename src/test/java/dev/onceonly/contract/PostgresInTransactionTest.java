package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.PostgresContractDatabase;
import dev.onceonly.testing.Race;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link InTransactionContract} on an empty PostgreSQL schema per test, through a HikariCP pool.
 */
class PostgresInTransactionTest extends InTransactionContract {
  @Override
  protected ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }

  /**
   * Two works that lock the same two rows in opposite orders: the server aborts one with a deadlock
   * ({@code 40P01}), and that work runs again, as the Javadoc says it may; its first run was rolled
   * back, so each user's row and message are there once.
   */
  @Test
  void aWorkTheServerAbortsForADeadlockRunsAgainAndCommitsOnce() throws Exception {
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
    assertThat(runs.get()).as("one of the two ran again").isEqualTo(3);

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
