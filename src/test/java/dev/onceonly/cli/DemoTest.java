package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.SqliteContractDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code onceonly demo} on a temporary SQLite file ({@code --db}), plus what only the file target
 * has: a {@code jdbc:sqlite:} URL, and the errors of a missing driver and of {@code --redis}.
 */
class DemoTest extends DemoContract {
  @TempDir Path dir;
  SqliteContractDatabase db;

  @BeforeEach
  void createDatabase() {
    db = SqliteContractDatabase.in(dir);
  }

  @Override
  ContractDatabase database() {
    return db;
  }

  @Override
  String[] target() {
    return new String[] {"--db", db.file().toString()};
  }

  @Test
  void runsThroughAJdbcUrlAsWell() throws Exception {
    Path file = dir.resolve("url.db");
    CliRun run = CliRun.of("demo", "--jdbc-url", "jdbc:sqlite:" + file, "--jobs", "50");
    assertThat(run.status()).as("%s", run).isZero();
    assertThat(run.lastLine()).endsWith(" OK");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath())) {
      assertThat(count(c, "SELECT COUNT(DISTINCT job_id) FROM reports")).isEqualTo(50);
      assertThat(count(c, "SELECT COUNT(*) FROM reports")).isEqualTo(50);
    }
  }

  @Test
  void aMissingDriverFailsClearly() {
    CliRun pg = CliRun.of("demo", "--jdbc-url", "jdbc:nosuchdb://h/db?password=s3cret");
    assertThat(pg.status()).isEqualTo(4);
    assertThat(pg.err())
        .startsWith("onceonly: no JDBC driver on the class path accepts")
        .doesNotContain("s3cret");
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
