package dev.onceonly.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class MariaDbServerSmokeTest {
  @Test
  void sessionsRunInTheNonUtcZoneOnTheBuildsOwnServer() throws Exception {
    String db = MariaDbServer.newDatabase("smoke");
    try (Connection c = MariaDbServer.connect(db);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@session.time_zone, @@datadir, VERSION()")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo(MariaDbServer.SESSION_TIME_ZONE);
      assertThat(rs.getString(2)).contains("onceonly-mariadb");
      assertThat(rs.getString(3)).contains("MariaDB");
    }
  }
}
