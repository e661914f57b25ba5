package dev.onceonly.readme;

import dev.onceonly.OnceOnly;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The application's own table and JDBC code. */
final class Charges {
  static void createTable(OnceOnly once) throws SQLException {
    once.useTransaction(
        tx -> {
          try (Statement s = tx.createStatement()) {
            s.execute(
                "CREATE TABLE charges (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL,"
                    + " cents INTEGER NOT NULL)");
          }
        });
  }

  /** Inserts a charge of 1250 cents into the fault kit's {@code charges} table (no id column). */
  static long insert(Connection tx, String order) throws SQLException {
    return ChargeTargets.insert(tx, order);
  }

  static long insert(Connection tx, String order, long cents) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO charges (order_id, cents) VALUES (?, ?) RETURNING id")) {
      ps.setString(1, order);
      ps.setLong(2, cents);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  static long count(OnceOnly once, String order) throws SQLException {
    return once.inTransaction(
        tx -> {
          try (PreparedStatement ps =
              tx.prepareStatement("SELECT COUNT(*) FROM charges WHERE order_id = ?")) {
            ps.setString(1, order);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              return rs.getLong(1);
            }
          }
        });
  }
}
