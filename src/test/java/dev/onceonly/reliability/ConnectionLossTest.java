package dev.onceonly.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.ConnectionLostException;
import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.Outcome;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.TcpRelay;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A connection lost under a step, on the embedded PostgreSQL reached through a {@link TcpRelay}: in
 * the middle of the transaction (the relay resets every connection), and at the commit (the relay
 * lets {@code COMMIT} reach the server, drops its answer and resets the link). Rows are counted on
 * a direct connection afterwards.
 */
class ConnectionLossTest {
  private String db;
  private TcpRelay relay;
  private HikariDataSource pool;
  private OnceOnly once;

  @BeforeEach
  void open() throws SQLException {
    db = EmbeddedPg.newDatabase("connection_loss");
    try (Connection c = EmbeddedPg.connect(db);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE charges (charge_key TEXT NOT NULL)");
    }
    relay = TcpRelay.to(EmbeddedPg.server().getPort());
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(
        "jdbc:postgresql://127.0.0.1:" + relay.port() + "/" + db + "?prepareThreshold=0");
    config.setDataSourceProperties(EmbeddedPg.properties());
    config.setMaximumPoolSize(2);
    config.setConnectionTimeout(5_000);
    pool = new HikariDataSource(config);
    once = OnceOnly.builder().dataSource(pool).build();
  }

  @AfterEach
  void close() {
    once.close();
    pool.close();
    relay.close();
  }

  private Outcome<String> charge(String key, Runnable fault) throws SQLException {
    return once.receipts()
        .execute(
            IntentKey.of("shop", key),
            "charge",
            Map.of("amount", 5),
            String.class,
            tx -> {
              insert(tx, key);
              fault.run();
              insert(tx, key + "-second-row");
              return "charged " + key;
            });
  }

  /**
   * Calls the step again while it says the connection was lost, as a caller does: the pool may
   * still hold another connection the relay reset, which it finds broken only by using it.
   */
  private Outcome<String> retried(String key) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return charge(key, () -> {});
      } catch (ConnectionLostException e) {
        if (attempt == 3) {
          throw e;
        }
      }
    }
  }

  private static void insert(Connection tx, String key) throws SQLException {
    try (PreparedStatement ps = tx.prepareStatement("INSERT INTO charges VALUES (?)")) {
      ps.setString(1, key);
      ps.executeUpdate();
    }
  }

  @Test
  void aConnectionLostMidTransactionIsATypedRetryableErrorAndTheRetryRunsTheEffectOnce()
      throws SQLException {
    assertThatThrownBy(
            () ->
                charge(
                    "k-mid",
                    () -> {
                      relay.cut();
                      relay.heal(); // new connections work again; this one is gone
                    }))
        .isInstanceOfSatisfying(
            ConnectionLostException.class, e -> assertThat(e.commitUnknown()).isFalse());
    assertThat(count("SELECT count(*) FROM charges")).as("rows of the lost transaction").isZero();
    assertThat(receipts("k-mid")).isZero();

    Outcome<String> retried = retried("k-mid");
    assertThat(retried).isInstanceOf(Outcome.Created.class);
    assertThat(count("SELECT count(*) FROM charges WHERE charge_key = 'k-mid'")).isEqualTo(1);
    assertThat(receipts("k-mid")).isEqualTo(1);
  }

  @Test
  void aCommitWhoseAnswerIsLostIsLookedUpAgainAndAnsweredFromItsReceipt() throws SQLException {
    Outcome<String> outcome = charge("k-commit", () -> relay.loseAnswerTo("COMMIT"));
    assertThat(relay.answerLost()).as("the relay dropped the commit's answer").isTrue();
    assertThat(outcome)
        .isInstanceOfSatisfying(
            Outcome.Repeated.class, r -> assertThat(r.result()).isEqualTo("charged k-commit"));
    assertThat(count("SELECT count(*) FROM charges WHERE charge_key = 'k-commit'")).isEqualTo(1);
    assertThat(receipts("k-commit")).isEqualTo(1);

    assertThat(charge("k-commit", () -> {})).isInstanceOf(Outcome.Repeated.class);
    assertThat(count("SELECT count(*) FROM charges WHERE charge_key = 'k-commit'")).isEqualTo(1);
  }

  @Test
  void aCommitWithoutAReceiptWhoseAnswerIsLostSaysItsOutcomeIsUnknown() throws SQLException {
    assertThatThrownBy(
            () ->
                once.useTransaction(
                    tx -> {
                      insert(tx, "plain");
                      relay.loseAnswerTo("COMMIT");
                    }))
        .isInstanceOfSatisfying(
            ConnectionLostException.class, e -> assertThat(e.commitUnknown()).isTrue());
    assertThat(count("SELECT count(*) FROM charges WHERE charge_key = 'plain'"))
        .as("the commit reached the server")
        .isEqualTo(1);
  }

  private long receipts(String key) throws SQLException {
    return count("SELECT count(*) FROM onceonly_receipts WHERE intent_key = '" + key + "'");
  }

  private long count(String sql) throws SQLException {
    try (Connection c = EmbeddedPg.connect(db);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
