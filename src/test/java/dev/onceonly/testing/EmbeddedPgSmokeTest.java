package dev.onceonly.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class EmbeddedPgSmokeTest {
  @Test
  void sessionsRunInTheNonUtcZone() throws Exception {
    String db = EmbeddedPg.newDatabase("smoke");
    try (Connection c = EmbeddedPg.connect(db);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW TimeZone")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo(EmbeddedPg.SESSION_TIME_ZONE);
    }
  }
}
