package dev.onceonly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.internal.db.Migrator;
import dev.onceonly.testing.EmbeddedPg;
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
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the tool points, apart from a prepared store ({@link CommandsContract}, {@link
 * DemoContract}): a missing file is an error and is not created, exactly the named file is used,
 * {@code jdbc:sqlite:} URLs, wrong targets and a URL no driver accepts give one line and a typed
 * status, and a wrong database, an unknown user or a server that is not there is one line without
 * the password.
 */
class TargetTest {
  @TempDir Path dir;

  @Test
  void aMissingFileIsAnErrorAndIsNotCreated() {
    String missing = dir.resolve("missing.db").toString();
    for (String[] args :
        List.of(
            new String[] {"status", "--db", missing},
            new String[] {"pending", "--db", missing},
            new String[] {"receipts", "show", "u-1", "op-17", "--db", missing},
            new String[] {"dead-letters", "list", "--db", missing},
            new String[] {"dead-letters", "requeue", "q", "k", "--db", missing},
            new String[] {"unknown", "list", "--db", missing},
            new String[] {"unknown", "resolve", "s", "k", "--done", "--db", missing},
            new String[] {"purge", "--older-than", "1d", "--db", missing})) {
      CliRun run = CliRun.of(args);
      assertThat(run.status()).as("%s", run).isEqualTo(3);
      assertThat(run.err()).startsWith("onceonly: no database file at " + missing).hasLineCount(1);
      assertThat(Path.of(missing)).doesNotExist();
    }
  }

  @Test
  void migrateAndStatusUseExactlyTheNamedFile() throws Exception {
    Path folder = Files.createDirectory(dir.resolve("named"));
    Path file = folder.resolve("new?cache_size=1&x=1 #%41");
    CliRun migrate = CliRun.of("migrate", "--db", file.toString());
    assertThat(migrate.status()).as("%s", migrate).isZero();
    assertThat(migrate.out()).contains(file.toString());
    try (Stream<Path> files = Files.list(folder)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactly(file.getFileName().toString());
    }
    String uri = "jdbc:sqlite:" + file.toUri().toASCIIString() + "?mode=ro";
    try (Connection c = DriverManager.getConnection(uri);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM onceonly_schema_version")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(Migrator.latestVersion());
    }
    CliRun status = CliRun.of("status", "--db", file.toString(), "--json");
    assertThat(status.status()).as("%s", status).isZero();
    assertThat(CommandsContract.json(status).get("pendingIntents").asLong()).isZero();
  }

  @Test
  void wrongTargetsGiveOneLineAndATypedStatus() {
    CliRun none = CliRun.of("status");
    assertThat(none.status()).isEqualTo(2);
    assertThat(none.err()).isEqualTo("onceonly: give exactly one of --db FILE or --jdbc-url URL\n");
    CliRun both =
        CliRun.of("status", "--jdbc-url", "jdbc:sqlite:x", "--db", dir.resolve("x.db").toString());
    assertThat(both.status()).isEqualTo(2);

    CliRun driver =
        CliRun.of("status", "--jdbc-url", "jdbc:nosuchdb://localhost/app?password=hunter2");
    assertThat(driver.status()).isEqualTo(4);
    assertThat(driver.err())
        .startsWith(
            "onceonly: no JDBC driver on the class path accepts jdbc:nosuchdb://localhost/app?password=***")
        .hasLineCount(1);

    CliRun url =
        CliRun.of("status", "--jdbc-url", "jdbc:sqlite:" + dir.resolve("no/such/dir/x.db"));
    assertThat(url.status()).as("%s", url).isEqualTo(4);
    assertThat(url.err()).startsWith("onceonly: cannot connect to jdbc:sqlite:").hasLineCount(1);

    CliRun unknown = CliRun.of("frobnicate");
    assertThat(unknown.status()).isEqualTo(2);
    assertThat(unknown.err()).startsWith("onceonly: Unmatched argument");
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

  @Test
  void anUnreachableServerIsOneLineWithoutThePassword() {
    String url = "jdbc:postgresql://127.0.0.1:" + closedPort() + "/app";
    CliRun run = CliRun.of("demo", "--jdbc-url", url + "?user=demo&password=s3cret");
    assertThat(run.status()).as("%s", run).isEqualTo(4);
    assertThat(run.err())
        .startsWith("onceonly: cannot connect to " + url + "?user=demo&password=***: ")
        .doesNotContain("s3cret")
        .hasLineCount(1);
    assertThat(run.out()).doesNotContain("summary");
  }

  /** Returns a local TCP port nothing listens on (it was free a moment ago). */
  static int closedPort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
