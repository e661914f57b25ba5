package dev.onceonly.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IntentKey;
import dev.onceonly.OnceOnly;
import dev.onceonly.queue.Worker;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.Eventually;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The java blocks of docs/postgresql.md, as they are written there, run on the embedded PostgreSQL;
 * the rows are counted through a connection of the test's own.
 */
class PostgresDocsTest {
  private static String database;

  @BeforeAll
  static void createTables() throws SQLException {
    database = EmbeddedPg.newDatabase("docs_postgresql");
    try (Connection c = EmbeddedPg.connect(database);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE tickets (id SERIAL PRIMARY KEY, subject TEXT NOT NULL)");
      s.execute("CREATE TABLE mails (message_key TEXT NOT NULL)");
    }
  }

  static long count(String sql) throws SQLException {
    try (Connection c = EmbeddedPg.connect(database);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * The docs' pool class, pointed at the embedded server: the host, user and password the docs set
   * stand for a real deployment's, so these setters put the embedded server's in their place.
   */
  static final class HikariDataSource extends com.zaxxer.hikari.HikariDataSource {
    @Override
    public void setJdbcUrl(String jdbcUrl) {
      super.setJdbcUrl(EmbeddedPg.url(database));
    }

    @Override
    public void setUsername(String username) {
      super.setUsername("postgres");
    }

    @Override
    public void setPassword(String password) {
      super.setPassword(null);
    }
  }

  record Ticket(long id) {}

  private static Ticket insertTicket(Connection tx) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO tickets (subject) VALUES ('API timeout') RETURNING id")) {
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Ticket(rs.getLong(1));
      }
    }
  }

  @Test
  void gettingStartedWritesOneTicketHoweverOftenItRuns() throws SQLException {
    String secret = "not used by the embedded server";
    IntentKey key = IntentKey.of("u-1", "op-17");
    Map<String, String> args = Map.of("subject", "API timeout");
    for (int run = 0; run < 3; run++) {
      // ---- docs/postgresql.md, getting started ----
      HikariDataSource pool = new HikariDataSource();
      pool.setJdbcUrl("jdbc:postgresql://db.internal:5432/orders");
      pool.setUsername("orders");
      pool.setPassword(secret);
      pool.setMaximumPoolSize(10);

      try (OnceOnly once = OnceOnly.builder().dataSource(pool).build()) {
        once.receipts().execute(key, "create_ticket", args, Ticket.class, tx -> insertTicket(tx));
      }
      // ---- end ----
      assertThat(pool.isClosed()).isFalse(); // the pool stays yours
      pool.close();
    }
    assertThat(count("SELECT COUNT(*) FROM tickets")).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM onceonly_receipts WHERE intent_key = 'op-17'"))
        .isEqualTo(1);
  }

  @Test
  void aStoreListeningForSendsHasItsWorkerHandleWhatAnotherInstanceSent() throws Exception {
    try (var pool = EmbeddedPg.pool(database, 4);
        var directSource = EmbeddedPg.pool(database, 1);
        var senderPool = EmbeddedPg.pool(database, 2)) {
      // ---- docs/postgresql.md, waking idle workers ----
      OnceOnly once =
          OnceOnly.builder()
              .dataSource(pool) // may be behind PgBouncer
              .listenForSends(directSource) // a direct connection: LISTEN needs a session
              .build();
      // ---- end ----
      try (once;
          OnceOnly sender = OnceOnly.builder().dataSource(senderPool).build();
          Worker worker =
              Worker.builder(
                      once.queue(),
                      "mail",
                      job ->
                          job.completeWith(
                              tx -> {
                                try (PreparedStatement ps =
                                    tx.prepareStatement("INSERT INTO mails VALUES (?)")) {
                                  ps.setString(1, job.delivery().key());
                                  return ps.executeUpdate();
                                }
                              }))
                  .build()
                  .start()) {
        sender.queue().send("mail", "welcome-1", Map.of("to", "ada"));
        Eventually.await(
            Duration.ofSeconds(30),
            "the mail handled",
            () -> {
              try {
                return count("SELECT COUNT(*) FROM mails") == 1;
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            });
      }
    }
    assertThat(count("SELECT COUNT(*) FROM onceonly_messages WHERE queue = 'mail'")).isZero();
  }
}
