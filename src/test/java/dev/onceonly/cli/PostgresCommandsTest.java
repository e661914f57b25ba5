package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.onceonly.testing.ChildJvm;
import dev.onceonly.testing.ContractDatabase;
import dev.onceonly.testing.EmbeddedPg;
import dev.onceonly.testing.Eventually;
import dev.onceonly.testing.PostgresContractDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator commands on PostgreSQL ({@code --jdbc-url jdbc:postgresql:...}), each store in a
 * schema of its own on the embedded server (the URL's {@code currentSchema}), written by a store
 * whose sessions run in {@link EmbeddedPg#SESSION_TIME_ZONE}; plus what only a server has: a wrong
 * database, an unknown user, a wrong password, a server that is not there, and a tool in yet
 * another time zone.
 */
class PostgresCommandsTest extends CommandsContract {
  @TempDir Path dir;

  @Override
  ContractDatabase newDatabase() {
    return PostgresContractDatabase.create();
  }

  @Override
  String[] target(ContractDatabase db) {
    return new String[] {"--jdbc-url", url(db)};
  }

  @Override
  String describe(ContractDatabase db) {
    return url(db);
  }

  @Override
  String tablesLike(String prefix) {
    return "SELECT table_name FROM information_schema.tables"
        + " WHERE table_schema = current_schema() AND table_name LIKE '"
        + prefix
        + "%'";
  }

  private static String url(ContractDatabase db) {
    return ((PostgresContractDatabase) db).url();
  }

  /** Returns a local TCP port nothing listens on (it was free a moment ago). */
  static int closedPort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void aWrongDatabaseUserOrServerIsOneLineWithoutThePassword() {
    int port = EmbeddedPg.server().getPort();
    String base = "jdbc:postgresql://localhost:" + port;
    for (String[] urlAndCause :
        new String[][] {
          {base + "/no_such_db?user=postgres&password=s3cret", "database \"no_such_db\""},
          {base + "/postgres?user=nobody&password=s3cret", "role \"nobody\""},
          {"jdbc:postgresql://127.0.0.1:" + closedPort() + "/app?user=u&password=s3cret", "refused"}
        }) {
      String url = urlAndCause[0];
      for (String command : new String[] {"status", "pending", "migrate"}) {
        CliRun run = CliRun.of(command, "--jdbc-url", url);
        assertThat(run.status()).as("%s", run).isEqualTo(4);
        assertThat(run.err())
            .startsWith("onceonly: cannot connect to " + Target.redact(url) + ": ")
            .contains(urlAndCause[1])
            .doesNotContain("s3cret")
            .doesNotContain("\tat ")
            .hasLineCount(1);
        assertThat(run.out()).isEmpty();
      }
    }
    assertThat(Target.redact(base + "/x?user=u&password=s3cret")).endsWith("password=***");
  }

  @Test
  void timestampsAreTheRowsInstantsInAnyTimeZoneOfTheTool() throws Exception {
    String zone = "America/St_Johns"; // UTC-3:30, far from the writer's Pacific/Chatham
    assertThat(TimeZone.getDefault().getID()).isNotEqualTo(zone);
    try (ChildJvm child =
        ChildJvm.start(
            "cli-in-zone",
            dir,
            CliInZone.class,
            zone,
            "dead-letters",
            "list",
            "--json",
            "--jdbc-url",
            url(store))) {
      assertThat(child.awaitExit(Duration.ofSeconds(60))).as(child.diagnostics("exit")).isZero();
      JsonNode list = new ObjectMapper().readTree(String.join("\n", child.lines()));
      Instant deadAt = Instant.parse(list.get("deadLetters").get(0).get("deadAt").asText());
      assertThat(deadAt)
          .isEqualTo(instant("dead_at", "onceonly_dead_letters", "message_key = 'm-1'"))
          .isBetween(THEN, THEN.plusSeconds(2));
    }
  }

  @Test
  void aWrongPasswordIsOneLineAndTheRightOneWorks() throws Exception {
    String role = "cli_pw";
    String rule = "host all " + role + " all scram-sha-256\n";
    Path hba;
    try (Connection c = EmbeddedPg.connect("postgres");
        Statement s = c.createStatement()) {
      s.execute(
          "DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '"
              + role
              + "') THEN CREATE ROLE "
              + role
              + " LOGIN SUPERUSER PASSWORD 'right-pw'; END IF; END$$");
      try (ResultSet rs = s.executeQuery("SHOW hba_file")) {
        rs.next();
        hba = Path.of(rs.getString(1));
      }
    }
    String rules = Files.readString(hba);
    Files.writeString(hba, rule + rules); // before the server's "trust" lines, for this role only
    try {
      reload();
      String url = url(store).replace("user=postgres", "user=" + role);
      Eventually.await(
          Duration.ofSeconds(10),
          "the server asks " + role + " for a password",
          () -> refused(url));

      CliRun wrong = CliRun.of("status", "--jdbc-url", url + "&password=wrong-pw");
      assertThat(wrong.status()).as("%s", wrong).isEqualTo(4);
      assertThat(wrong.err())
          .startsWith("onceonly: cannot connect to " + url + "&password=***: ")
          .contains("password authentication failed for user \"" + role + "\"")
          .doesNotContain("wrong-pw")
          .hasLineCount(1);

      JsonNode status =
          json(CliRun.of("status", "--jdbc-url", url + "&password=right-pw", "--json"));
      assertThat(status.get("pendingIntents").asLong()).isEqualTo(2);
      assertThat(status.get("database").asText()).isEqualTo(url + "&password=***");
    } finally {
      Files.writeString(hba, rules);
      reload();
    }
  }

  private static boolean refused(String url) {
    try (Connection c = DriverManager.getConnection(url + "&password=wrong-pw")) {
      return false;
    } catch (SQLException e) {
      return true;
    }
  }

  private static void reload() throws SQLException {
    try (Connection c = EmbeddedPg.connect("postgres");
        Statement s = c.createStatement()) {
      s.execute("SELECT pg_reload_conf()");
    }
  }
}
