package dev.onceonly.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.Effect;
import dev.onceonly.Outcome;
import dev.onceonly.cli.demo.Tickets.Ticket;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An effect cannot control the connection it is lent, nor the caller's: every way to commit, roll
 * back, leave the transaction or change the session through JDBC or SQL is refused with {@link
 * dev.onceonly.ConnectionMisuseException}, nothing of the effect is written, and the store goes on
 * working.
 */
@ParameterizedClass(name = "[{0}]")
@MethodSource("dev.onceonly.testing.ContractDatabases#everyDatabase")
public class ConnectionMisuseContract extends TicketDeskSupport {
  /** Something an effect does to its connection that must be refused. */
  @FunctionalInterface
  interface Misuse {
    void on(Connection c) throws SQLException;
  }

  private static Arguments misuse(String name, Dialect only, Misuse action) {
    return Arguments.of(Named.of(name, action), only);
  }

  private static Misuse sql(String statement) {
    return c -> {
      try (java.sql.Statement s = c.createStatement()) {
        s.execute(statement);
      }
    };
  }

  static List<Arguments> misuses() {
    return List.of(
        misuse("commit()", null, Connection::commit),
        misuse("rollback()", null, Connection::rollback),
        misuse("setAutoCommit(true)", null, c -> c.setAutoCommit(true)),
        misuse("close()", null, Connection::close),
        misuse("setSavepoint()", null, Connection::setSavepoint),
        misuse("setReadOnly(true)", null, c -> c.setReadOnly(true)),
        misuse(
            "setTransactionIsolation",
            null,
            c -> c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE)),
        misuse("execute COMMIT", null, sql("COMMIT")),
        misuse("commented commit", null, sql("  /* a comment */ -- another\n\t commit")),
        misuse(
            "insert then COMMIT in one string",
            null,
            sql("INSERT INTO tickets (owner, subject) VALUES ('u-1', 'y'); COMMIT")),
        misuse(
            "executeUpdate ROLLBACK",
            null,
            c -> {
              try (java.sql.Statement s = c.createStatement()) {
                s.executeUpdate("ROLLBACK");
              }
            }),
        misuse(
            "addBatch END",
            null,
            c -> {
              try (java.sql.Statement s = c.createStatement()) {
                s.addBatch("END");
                s.executeBatch();
              }
            }),
        misuse(
            "prepareStatement BEGIN",
            null,
            c -> {
              try (PreparedStatement ps = c.prepareStatement("BEGIN")) {
                ps.execute();
              }
            }),
        misuse(
            "prepareCall COMMIT",
            null,
            c -> {
              try (java.sql.CallableStatement cs = c.prepareCall("COMMIT")) {
                cs.execute();
              }
            }),
        misuse("SAVEPOINT", null, sql("SAVEPOINT mine")),
        misuse("RELEASE", null, sql("RELEASE SAVEPOINT onceonly_group")),
        misuse("ATTACH", Dialect.SQLITE, sql("ATTACH DATABASE ':memory:' AS other")),
        misuse("DETACH", Dialect.SQLITE, sql("DETACH DATABASE other")),
        misuse("PRAGMA query_only", Dialect.SQLITE, sql("PRAGMA query_only=1")),
        misuse("pragma lowercase", Dialect.SQLITE, sql("pragma foreign_keys = off")),
        misuse("SET search_path", Dialect.POSTGRESQL, sql("SET search_path TO public")),
        misuse("SET SESSION", Dialect.POSTGRESQL, sql("SET SESSION statement_timeout = 1")),
        misuse("RESET ALL", Dialect.POSTGRESQL, sql("RESET ALL")),
        misuse("LISTEN", Dialect.POSTGRESQL, sql("LISTEN somewhere")),
        misuse("DISCARD", Dialect.POSTGRESQL, sql("DISCARD ALL")),
        misuse("START TRANSACTION", Dialect.POSTGRESQL, sql("START TRANSACTION")),
        misuse("setSchema", Dialect.POSTGRESQL, c -> c.setSchema("public")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("misuses")
  void anEffectCannotControlItsConnection(Misuse action, Dialect only) throws Exception {
    Assumptions.assumeTrue(only == null || only == dialect()); // before a store is migrated
    start();
    Effect<Ticket, SQLException> effect =
        c -> {
          insertTicket(c, "u-1", "x");
          action.on(c);
          return new Ticket(1, "x");
        };
    assertThatThrownBy(
            () -> once.receipts().execute(OP_17, OPERATION, SUBJECT, Ticket.class, effect))
        .isInstanceOf(dev.onceonly.ConnectionMisuseException.class)
        .hasMessageContaining("effect");
    assertTheStoreStillWorks();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("misuses")
  void anEffectCannotControlTheCallersConnectionEither(Misuse action, Dialect only)
      throws Exception {
    Assumptions.assumeTrue(only == null || only == dialect()); // before a store is migrated
    start();
    try (Connection caller = connect()) {
      begin(caller);
      insertTicket(caller, "u-2", "the caller's own row");
      Effect<Ticket, SQLException> effect =
          c -> {
            insertTicket(c, "u-1", "x");
            action.on(c);
            return new Ticket(1, "x");
          };
      assertThatThrownBy(
              () ->
                  once.receipts().execute(caller, OP_17, OPERATION, SUBJECT, Ticket.class, effect))
          .isInstanceOf(dev.onceonly.ConnectionMisuseException.class);
      commit(caller);
    }
    assertThat(count("SELECT COUNT(*) FROM tickets WHERE owner = 'u-2'")).isOne();
    assertThat(count("SELECT COUNT(*) FROM tickets WHERE owner = 'u-1'")).isZero();
    assertThat(receipts()).isZero();
  }

  /**
   * After a refused misuse: nothing of it was written, the next step writes normally (so no
   * query_only, no rolled-back transaction), no database is attached, and the rows are there after
   * reopening.
   */
  private void assertTheStoreStillWorks() throws SQLException {
    assertThat(tickets()).isZero();
    assertThat(receipts()).isZero();
    Effect<Ticket, SQLException> good =
        c -> {
          insertTicket(c, "u-1", "x");
          if (once.dialect() == Dialect.SQLITE) {
            try (java.sql.Statement s = c.createStatement();
                java.sql.ResultSet rs =
                    s.executeQuery("SELECT COUNT(*) FROM pragma_database_list")) {
              rs.next();
              assertThat(rs.getInt(1)).as("databases on the writer").isEqualTo(1);
            }
          }
          return new Ticket(1, "x");
        };
    assertThat(once.receipts().execute(OP_18, OPERATION, SUBJECT, Ticket.class, good))
        .isInstanceOf(Outcome.Created.class);
    assertThat(createTicket(OP_17, SUBJECT)).isInstanceOf(Outcome.Created.class);
    reopen();
    assertThat(tickets()).isEqualTo(2);
    assertThat(receipts()).isEqualTo(2);
    assertThat(createTicket(OP_17, SUBJECT)).isInstanceOf(Outcome.Repeated.class);
  }
}
