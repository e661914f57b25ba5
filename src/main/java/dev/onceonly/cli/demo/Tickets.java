package dev.onceonly.cli.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceonly.ArgumentsValidator;
import dev.onceonly.Effect;
import dev.onceonly.InvalidRequestException;
import dev.onceonly.sql.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The ticket desk's receiver: the {@code create_ticket} operation's checks and the business table
 * its effect writes to.
 */
public final class Tickets {
  private Tickets() {}

  /** The operation's name. */
  public static final String OPERATION = "create_ticket";

  /**
   * A created ticket, the result stored in the receipt.
   *
   * @param ticketId the row's id
   * @param subject the subject
   */
  public record Ticket(long ticketId, String subject) {}

  /**
   * The ticket desk's checks of {@code create_ticket}: only the member "subject", a string with
   * some non-blank text and at most 120 characters.
   */
  public static final ArgumentsValidator VALIDATOR = Tickets::check;

  private static void check(JsonNode arguments) {
    if (!arguments.isObject() || arguments.size() != 1 || !arguments.has("subject")) {
      throw new InvalidRequestException("arguments", "only \"subject\" is expected");
    }
    JsonNode subject = arguments.get("subject");
    if (!subject.isTextual()
        || subject.textValue().isBlank()
        || subject.textValue().length() > 120) {
      throw new InvalidRequestException(
          "arguments", "subject must hold some text and at most 120 characters");
    }
  }

  /**
   * Creates the {@code tickets} table if it is missing.
   *
   * @param c a connection
   * @throws SQLException if the database refuses
   */
  public static void createTable(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      String id =
          switch (Dialect.detect(c)) {
            case POSTGRESQL -> "BIGSERIAL";
            case MARIADB -> "BIGINT AUTO_INCREMENT";
            case SQLITE -> "INTEGER";
          };
      s.execute(
          "CREATE TABLE IF NOT EXISTS tickets (id "
              + id
              + " PRIMARY KEY, owner TEXT NOT NULL, subject TEXT NOT NULL)");
    }
  }

  /**
   * The effect: insert a ticket, return it.
   *
   * @param owner who asks
   * @param subject what about
   * @return the effect
   */
  public static Effect<Ticket, SQLException> create(String owner, String subject) {
    return c -> {
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO tickets (owner, subject) VALUES (?, ?)",
              Statement.RETURN_GENERATED_KEYS)) {
        ps.setString(1, owner);
        ps.setString(2, subject);
        ps.executeUpdate();
        try (ResultSet keys = ps.getGeneratedKeys()) {
          keys.next();
          return new Ticket(keys.getLong(1), subject);
        }
      }
    };
  }
}
