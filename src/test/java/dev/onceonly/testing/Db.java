package dev.onceonly.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Reads a SQLite file through a fresh connection, as a person checking the rows would. */
public final class Db {
  private Db() {}

  public static Connection open(Path file) throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
  }

  public static long count(Path file, String sql) {
    try (Connection c = open(file);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  public static List<String> strings(Path file, String sql) {
    try (Connection c = open(file);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  public static void exec(Path file, String sql) {
    try (Connection c = open(file);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
