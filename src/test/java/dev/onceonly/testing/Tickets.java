package dev.onceonly.testing;

import dev.onceonly.Effect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Seed 003's ticket receiver: the business table the effects write to. */
public final class Tickets {
  private Tickets() {}

  /** A created ticket, the result stored in the receipt. */
  public record Ticket(long ticketId, String subject) {}

  public static void createTable(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS tickets (id INTEGER PRIMARY KEY, owner TEXT NOT NULL,"
              + " subject TEXT NOT NULL)");
    }
  }

  /** The effect: insert a ticket, return it. */
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
