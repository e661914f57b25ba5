package dev.onceonly.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.Canonicalizer;
import dev.onceonly.Effect;
import dev.onceonly.Fingerprint;
import dev.onceonly.IntentKey;
import dev.onceonly.Outcome;
import dev.onceonly.cli.demo.Tickets;
import dev.onceonly.cli.demo.Tickets.Ticket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.BeforeEach;

/**
 * The ticket desk the receipts suites run against: its {@code tickets} table, created before each
 * test, the {@code create_ticket} step and the counts the suites assert on.
 */
public abstract class TicketDeskSupport extends ContractSupport {
  static final String RECEIPTS = "onceonly_receipts";
  static final String INTENTS = "onceonly_intents";
  static final String OPERATION = "create_ticket";
  static final IntentKey OP_17 = IntentKey.of("u-1", "op-17");
  static final IntentKey OP_18 = IntentKey.of("u-1", "op-18");
  static final Map<String, String> SUBJECT = Map.of("subject", "Investigar fallo de API");
  static final Map<String, String> OTHER = Map.of("subject", "Otro problema");

  static final ObjectMapper MAPPER = new ObjectMapper();

  @BeforeEach
  void businessTables() {
    createTickets();
  }

  /** The ticket desk's {@code create_ticket}: the effect inserts a ticket for the key's owner. */
  Outcome<Ticket> createTicket(IntentKey key, Map<String, String> arguments) throws SQLException {
    return once.receipts()
        .execute(
            key,
            OPERATION,
            arguments,
            Ticket.class,
            Tickets.create(key.scope(), arguments.get("subject")));
  }

  /** Like {@link #createTicket}, then loses the response: the step has already committed. */
  Outcome<Ticket> createTicketLosingResponse(IntentKey key, Map<String, String> arguments)
      throws SQLException, TimeoutException {
    createTicket(key, arguments);
    throw new TimeoutException("the receiver committed, but the response was lost");
  }

  static Fingerprint fingerprint(String operation, Object arguments) {
    return Canonicalizer.defaults().fingerprint(operation, MAPPER.<JsonNode>valueToTree(arguments));
  }

  long tickets() {
    return count("SELECT COUNT(*) FROM tickets");
  }

  long receipts() {
    return count("SELECT COUNT(*) FROM " + RECEIPTS);
  }

  static Effect<Ticket, SQLException> mustNotRun() {
    return c -> {
      throw new AssertionError("the effect must not run");
    };
  }

  static void insertTicket(Connection c, String owner, String subject) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO tickets (owner, subject) VALUES (?, ?)")) {
      ps.setString(1, owner);
      ps.setString(2, subject);
      ps.executeUpdate();
    }
  }
}
