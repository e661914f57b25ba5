package dev.onceonly.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link TransactionPoolingDataSource} does what the transaction-pooled suites rely on: borrowings
 * land on several backends, nothing a client sets survives into the next borrowing of the same
 * backend, leftover session state is reported, and the schema and time zone stay.
 */
class TransactionPoolingDataSourceTest {

  @Test
  void borrowingsSpreadOverBackendsAndLoseTheirSessionState() throws SQLException {
    PostgresContractDatabase database = PostgresContractDatabase.create();
    database.exec("CREATE TABLE marker (v TEXT)", "INSERT INTO marker VALUES ('here')");
    try (TransactionPoolingDataSource source =
        new TransactionPoolingDataSource(database.url(), 3, 42)) {
      Set<String> backends = new HashSet<>();
      for (int i = 0; i < 30; i++) {
        try (Connection c = source.getConnection()) {
          assertEquals("0", one(c, "SHOW statement_timeout"), "a SET survived, borrowing " + i);
          assertEquals("here", one(c, "SELECT v FROM marker"), "schema, borrowing " + i);
          assertEquals(EmbeddedPg.SESSION_TIME_ZONE, one(c, "SHOW TIME ZONE"));
          backends.add(one(c, "SELECT pg_backend_pid()"));
          one(c, "SELECT set_config('statement_timeout', '20s', false)");
          c.setAutoCommit(false);
          try (Statement s = c.createStatement()) {
            s.execute("INSERT INTO marker VALUES ('uncommitted')");
          }
          // left open: the data source rolls back, as PgBouncer's reset would
        }
      }
      assertEquals(1, database.count("SELECT COUNT(*) FROM marker"));
      assertEquals(3, backends.size(), "backends used: " + backends);
      List<String> leftovers = source.leftovers();
      assertEquals(30, leftovers.size(), leftovers.toString());
      assertTrue(leftovers.get(0).startsWith("SET statement_timeout"), leftovers.toString());
    } finally {
      database.close();
    }
  }

  private static String one(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
